// Issue 34: the boundary denies by default. Each attack class runs through `armature exec` with
// the sandbox on and must have no effect, beside a benign control that keeps working: no host Unix
// socket can be reached, the host's /tmp is neither seen nor written, a bwrap planted on PATH is
// not the sandbox, a FIFO in the report folder does not hang armature.
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, connect, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startExec } from "./exec-process.js";
import { withTempDir } from "./helpers.js";
import { probeSandbox } from "../src/sandbox/probe.js";

const probe = probeSandbox({ ...process.env, ARMATURE_SANDBOX_BWRAP: "" });
const skipReason = probe.available ? undefined : probe.reason;

const call = (id: string, command: string): unknown[] => [{ type: "tool_use", id, name: "Bash", input: { command } }];
type Result = { content: Array<{ content: string; is_error?: boolean }> };
const text = (r: unknown): string => (r as Result).content.map((b) => b.content).join("\n");

const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

/** A Unix socket server like a tmux server or an agent: counts what connects. */
async function socketServer(path: string): Promise<{ connections: () => number }> {
  let n = 0;
  const server = createServer((c) => {
    n++;
    c.end("hello\n");
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return { connections: () => n };
}

const CONNECT_PY = (path: string): string =>
  `import socket\ntry:\n  s = socket.socket(socket.AF_UNIX)\n  s.connect(${JSON.stringify(path)})\n  print("connected", s.recv(10))\nexcept OSError as e:\n  print("refused", e.errno)\n`;

describe.skipIf(skipReason !== undefined)("no host Unix socket is reachable from any boundary", () => {
  it("a socket under the home, in the project's parent and in /var/tmp: refused read-only and workspace-write; reachable outside armature (control)", async () => {
    await withTempDir(async (root) => {
      const home = join(root, "home");
      const project = join(root, "project");
      mkdirSync(join(home, ".local"), { recursive: true });
      mkdirSync(project);
      const paths = [join(home, ".local", "tmux.sock"), join(root, "ide.sock"), join(project, "db.sock")];
      const listeners = await Promise.all(paths.map(socketServer));
      for (const [i, p] of paths.entries()) writeFileSync(join(project, `c${i}.py`), CONNECT_PY(p));
      writeFileSync(join(project, "tool.sh"), `#!/bin/bash\nfor f in c0 c1 c2; do python3 $f.py; done\necho tool-finished\n`);
      chmodSync(join(project, "tool.sh"), 0o755);
      const env = { ...process.env, HOME: home };
      for (const mode of ["default", "bypassPermissions"]) {
        const exec = startExec(["--cwd", project, "--mode", mode], { env });
        const out = text(await exec.turn(call("a", "./tool.sh")));
        expect(out, mode).toContain("tool-finished");
        expect(out, mode).not.toContain("connected");
        expect(out.match(/refused 1\b/g)?.length, `${mode}: ${out}`).toBe(3);
        const exit = await exec.end();
        expect(exit.code, exit.stderr).toBe(0);
      }
      expect(listeners.map((l) => l.connections())).toEqual([0, 0, 0]);
      // Control: outside armature the same sockets answer.
      for (const p of paths) {
        await new Promise<void>((resolve, reject) => connect(p).on("data", () => resolve()).on("error", reject));
      }
      expect(listeners.map((l) => l.connections())).toEqual([1, 1, 1]);
      // Pipes between the call's own processes still work (socketpair, pipes): a pipeline, python's socketpair.
      const exec = startExec(["--cwd", project, "--mode", "bypassPermissions"], { env });
      const pair = text(await exec.turn(call("b", `python3 -c "import socket; a, b = socket.socketpair(); a.send(b'ok'); print('pair', b.recv(2))" | cat`)));
      expect(pair).toContain("pair b'ok'");
      await exec.end();
    });
  }, 60_000);
});

describe.skipIf(skipReason !== undefined)("a private /tmp per session", () => {
  it("the host's /tmp is not seen or written; the session's own persists between its calls; the project under /tmp still works", async () => {
    await withTempDir(async (root) => {
      const project = join(root, "project");
      mkdirSync(project);
      const hostFile = join(tmpdir(), `armature-host-secret-${process.pid}`);
      writeFileSync(hostFile, "HOST-TMP-SECRET");
      const planted = join(tmpdir(), `armature-written-${process.pid}`);
      try {
        const exec = startExec(["--cwd", project, "--mode", "bypassPermissions"]);
        const first = text(await exec.turn(call("a", `cat ${hostFile}; echo kept > /tmp/session-note; echo x > ${planted}; echo "tmpdir=$TMPDIR"; echo built > out.txt`)));
        expect(first).not.toContain("HOST-TMP-SECRET");
        expect(first).toContain("tmpdir=/tmp");
        expect(existsSync(planted), "a write to the host's /tmp happened").toBe(false);
        expect(existsSync("/tmp/session-note")).toBe(false);
        expect(readFileSync(join(project, "out.txt"), "utf8"), "the project (under /tmp here) stays writable").toBe("built\n");
        // The next call of the session sees what the last one left in its /tmp, read-only calls too.
        expect(text(await exec.turn(call("b", "cat /tmp/session-note")))).toContain("kept");
        const exit = await exec.end();
        expect(exit.code, exit.stderr).toBe(0);
      } finally {
        rmSync(hostFile, { force: true });
        rmSync(planted, { force: true });
      }
    });
  }, 60_000);
});

describe.skipIf(skipReason !== undefined)("armature's own programs come from the system's folders", () => {
  it("a bwrap, bash and rg planted in a PATH entry inside the project are never run", async () => {
    await withTempDir(async (root) => {
      const project = join(root, "project");
      const bin = join(project, ".venv", "bin");
      mkdirSync(bin, { recursive: true });
      const outside = join(root, "ran");
      for (const name of ["bwrap", "bash", "rg"]) {
        writeFileSync(join(bin, name), `#!/bin/sh\necho ${name} >> ${outside}\nexec /usr/bin/${name} "$@"\n`);
        chmodSync(join(bin, name), 0o755);
      }
      writeFileSync(join(project, "a.txt"), "needle\n");
      const env = { ...process.env, PATH: `${bin}:${process.env.PATH ?? ""}` };
      const exec = startExec(["--cwd", project, "--mode", "bypassPermissions"], { env });
      expect(text(await exec.turn(call("a", "echo built > b.txt && echo done")))).toContain("done");
      expect(text(await exec.turn([{ type: "tool_use", id: "g", name: "Grep", input: { pattern: "needle" } }]))).toContain("a.txt");
      const exit = await exec.end();
      expect(exit.code, exit.stderr).toBe(0);
      expect(existsSync(outside), existsSync(outside) ? readFileSync(outside, "utf8") : "").toBe(false);
    });
  }, 60_000);
});

describe.skipIf(skipReason !== undefined)("the report folder", () => {
  it("a FIFO or a folder put where the shell reports its directory does not hang or break armature", async () => {
    await withTempDir(async (project) => {
      // Sourced, so that it reads the shell's own EXIT trap, which names the report file.
      const plant = (how: string, check: string): string => `p=$(trap -p EXIT | grep -o "/[^ ']*shell-cwd/[^ ']*")\nrm -f "$p"\n${how}\n[ ${check} "$p" ] && echo planted\n`;
      writeFileSync(join(project, "fifo.sh"), plant(`mkfifo "$p"; trap - EXIT`, "-p"));
      writeFileSync(join(project, "dir.sh"), plant(`mkdir "$p"`, "-d"));
      writeFileSync(join(project, "big.sh"), plant(`head -c 50000000 /dev/zero | tr '\\0' / > "$p"; trap - EXIT`, "-s"));
      const exec = startExec(["--cwd", project, "--mode", "bypassPermissions"]);
      for (const script of ["fifo.sh", "dir.sh", "big.sh"]) expect(text(await exec.turn(call(script, `. ./${script}`))), script).toContain("planted");
      expect(text(await exec.turn(call("c", "echo still-working")))).toContain("still-working");
      const exit = await exec.end();
      expect(exit.code, exit.stderr).toBe(0);
    });
  }, 60_000);
});

describe.skipIf(skipReason !== undefined)("protected names at any depth, enforced", () => {
  it("a nested repository's hooks and config, a .git file, nested .claude/.envrc and a .pth stay as they were; a build and git commit work", async () => {
    await withTempDir(async (root) => {
      const project = join(root, "project");
      const nested = join(project, "libs", "inner");
      execFileSync("git", ["init", "-q", project]);
      execFileSync("git", ["init", "-q", nested]);
      writeFileSync(join(nested, ".git", "hooks", "pre-commit"), "#!/bin/sh\necho original\n");
      writeFileSync(join(project, "vendor.git"), "gitdir: ../x\n");
      mkdirSync(join(project, "pkg", ".claude"), { recursive: true });
      writeFileSync(join(project, "pkg", ".claude", "settings.json"), "{}\n");
      writeFileSync(join(project, "pkg", ".envrc"), "export A=1\n");
      mkdirSync(join(project, "sub"));
      writeFileSync(join(project, "sub", ".git"), "gitdir: ../.git\n");
      const site = join(project, ".venv", "lib", "python3.11", "site-packages");
      mkdirSync(site, { recursive: true });
      writeFileSync(join(site, "ok.pth"), "./lib\n");
      const attack = [
        `echo 'touch ${join(root, "pwned")}' >> libs/inner/.git/hooks/pre-commit`,
        `git -C libs/inner config core.fsmonitor 'touch ${join(root, "pwned")}'`,
        `echo 'gitdir: /elsewhere' > sub/.git`,
        `echo '{"hooks":{"x":1}}' > pkg/.claude/settings.json`,
        `echo 'touch ${join(root, "pwned")}' >> pkg/.envrc`,
        `echo 'import os; os.system("touch ${join(root, "pwned")}")' > ${site}/ok.pth`,
        `echo 'import os' > ${site}/new.pth`,
        `mkdir -p deep/down/.vscode && echo '{}' > deep/down/.vscode/tasks.json`,
      ];
      writeFileSync(join(project, "attack.sh"), `#!/bin/bash\n${attack.map((a) => `${a} 2>/dev/null`).join("\n")}\necho built > out.txt\ngit add out.txt && git -c user.name=t -c user.email=t@example.com commit -qm built && echo committed\n`);
      chmodSync(join(project, "attack.sh"), 0o755);
      const exec = startExec(["--cwd", project, "--mode", "bypassPermissions"]);
      const out = text(await exec.turn(call("a", "./attack.sh")));
      expect(out).toContain("committed");
      const exit = await exec.end();
      expect(exit.code, exit.stderr).toBe(0);
      expect(readFileSync(join(nested, ".git", "hooks", "pre-commit"), "utf8")).toBe("#!/bin/sh\necho original\n");
      expect(readFileSync(join(nested, ".git", "config"), "utf8")).not.toContain("fsmonitor");
      expect(readFileSync(join(project, "sub", ".git"), "utf8")).toBe("gitdir: ../.git\n");
      expect(readFileSync(join(project, "pkg", ".claude", "settings.json"), "utf8")).toBe("{}\n");
      expect(readFileSync(join(project, "pkg", ".envrc"), "utf8")).toBe("export A=1\n");
      expect(readFileSync(join(site, "ok.pth"), "utf8")).toBe("./lib\n");
      expect(existsSync(join(site, "new.pth")), "a new .pth is removed").toBe(false);
      expect(existsSync(join(project, "deep", "down", ".vscode")), "a new nested .vscode is removed").toBe(false);
      expect(readFileSync(join(project, "out.txt"), "utf8")).toBe("built\n");
      expect(existsSync(join(root, "pwned"))).toBe(false);
    });
  }, 60_000);

  it("cleanup never follows a link: a checked-out branch that links .config and .github out of the project removes nothing outside", async () => {
    await withTempDir(async (root) => {
      const home = join(root, "home");
      const project = join(root, "project");
      mkdirSync(join(home, ".config", "git"), { recursive: true });
      writeFileSync(join(home, ".config", "git", "config"), "[user]\n\tname = me\n");
      mkdirSync(join(root, "elsewhere", "workflows"), { recursive: true });
      writeFileSync(join(root, "elsewhere", "workflows", "keep.yml"), "keep\n");
      execFileSync("git", ["init", "-q", "-b", "main", project]);
      const git = (...args: string[]): string => execFileSync("git", ["-C", project, "-c", "user.name=t", "-c", "user.email=t@example.com", ...args], { encoding: "utf8" });
      writeFileSync(join(project, "a.txt"), "a\n");
      git("add", "a.txt");
      git("commit", "-qm", "a");
      git("checkout", "-qb", "evil");
      symlinkSync("../home/.config", join(project, ".config"));
      symlinkSync("../elsewhere", join(project, ".github"));
      git("add", ".config", ".github");
      git("commit", "-qm", "links");
      git("checkout", "-q", "main");
      const exec = startExec(["--cwd", project, "--mode", "bypassPermissions"], { env: { ...process.env, HOME: home } });
      text(await exec.turn(call("a", "git checkout -q evil && echo switched")));
      await exec.end();
      expect(readFileSync(join(home, ".config", "git", "config"), "utf8")).toContain("name = me");
      expect(readFileSync(join(root, "elsewhere", "workflows", "keep.yml"), "utf8")).toBe("keep\n");
    });
  }, 60_000);

  it("with the home as the working directory, no call creates credentials or start-up files there", async () => {
    await withTempDir(async (home) => {
      // In a script: the analysis cannot see what it writes, only the boundary and the cleanup hold it.
      writeFileSync(join(home, "plant.sh"), "mkdir -p .ssh .aws .config/autostart; echo key > .ssh/authorized_keys; echo k > .aws/credentials; echo x > .config/autostart/x.desktop; echo 'touch pwned' > .bashrc; echo notes > notes.txt; echo done\n");
      const exec = startExec(["--cwd", home, "--mode", "bypassPermissions"], { env: { ...process.env, HOME: home } });
      const out = text(await exec.turn(call("a", "bash plant.sh")));
      expect(out).toContain("done");
      await exec.end();
      for (const rel of [".ssh/authorized_keys", ".aws/credentials", ".config/autostart/x.desktop", ".bashrc"]) expect(existsSync(join(home, rel)), rel).toBe(false);
      expect(readFileSync(join(home, "notes.txt"), "utf8")).toBe("notes\n");
    });
  }, 60_000);

  it("kill -9 of armature mid-call: what the call created at a protected path is removed by the next start, before its first command", async () => {
    await withTempDir(async (root) => {
      const project = join(root, "project");
      const config = join(root, "config");
      mkdirSync(project);
      // The killed process's session folder stays where it was made (gc removes it later): here, in root.
      const env = { ...process.env, ARMATURE_CONFIG_DIR: config, TMPDIR: root };
      const exec = startExec(["--cwd", project, "--mode", "bypassPermissions"], { env });
      writeFileSync(join(project, "plant.sh"), "mkdir -p sub && echo 'touch pwned' > sub/.envrc && sleep 30\n");
      exec.write(call("a", "bash plant.sh"));
      for (let i = 0; i < 100 && !existsSync(join(project, "sub", ".envrc")); i++) await new Promise((r) => setTimeout(r, 50));
      expect(existsSync(join(project, "sub", ".envrc"))).toBe(true);
      exec.child.kill("SIGKILL");
      await exec.exited;
      const next = startExec(["--cwd", project, "--mode", "bypassPermissions"], { env });
      expect(text(await next.turn(call("b", "test -e sub/.envrc && echo present || echo absent")))).toContain("absent");
      await next.end();
      expect(existsSync(join(project, "sub", ".envrc"))).toBe(false);
    });
  }, 60_000);
});

describe.skipIf(skipReason !== undefined)("read rules by pattern, enforced by the boundary", () => {
  it("Read(**/.env) and Read(./secrets/**): an unknown program reads nothing of them in any boundary; other files read as before", async () => {
    await withTempDir(async (root) => {
      const project = join(root, "project");
      mkdirSync(join(project, "sub"), { recursive: true });
      mkdirSync(join(project, "secrets"));
      writeFileSync(join(project, "sub", ".env"), "SECRET-env");
      writeFileSync(join(project, ".env.local"), "SECRET-local");
      writeFileSync(join(project, "secrets", "key"), "SECRET-key");
      writeFileSync(join(project, "readme.txt"), "public-text");
      const settings = join(root, "settings.json");
      writeFileSync(settings, JSON.stringify({ permissions: { deny: ["Read(**/.env)", "Read(./secrets/**)"], ask: ["Read(./.env.*)"] } }));
      writeFileSync(join(project, "show.py"), "import glob\nfor f in ['sub/.env', '.env.local', 'secrets/key', 'readme.txt']:\n  try: print(f, open(f).read())\n  except OSError as e: print(f, 'error', e.errno)\n");
      writeFileSync(join(project, "show.sh"), "#!/bin/bash\npython3 show.py\n");
      chmodSync(join(project, "show.sh"), 0o755);
      for (const mode of ["default", "bypassPermissions"]) {
        const exec = startExec(["--cwd", project, "--mode", mode, "--settings", settings]);
        const out = text(await exec.turn(call("a", "./show.sh")));
        expect(out, mode).not.toContain("SECRET");
        expect(out, mode).toContain("public-text");
        await exec.end();
      }
      expect(readFileSync(join(project, "sub", ".env"), "utf8")).toBe("SECRET-env");
    });
  }, 60_000);
  it("a pattern the walk cannot enumerate (Read(~/**/.env), outside the working directories): the call asks instead of running read-only unasked", async () => {
    await withTempDir(async (root) => {
      const home = join(root, "home");
      const project = join(root, "project");
      mkdirSync(join(home, "other"), { recursive: true });
      mkdirSync(project);
      writeFileSync(join(home, "other", ".env"), "SECRET-home");
      writeFileSync(join(project, "show.sh"), `#!/bin/bash\ncat ${home}/other/.env 2>&1; echo shown\n`);
      chmodSync(join(project, "show.sh"), 0o755);
      const settings = join(root, "settings.json");
      writeFileSync(settings, JSON.stringify({ permissions: { deny: ["Read(~/**/.env)"] } }));
      const env = { ...process.env, HOME: home };
      const exec = startExec(["--cwd", project, "--settings", settings], { env });
      const out = text(await exec.turn(call("a", "./show.sh")));
      await exec.end();
      expect(out).not.toContain("SECRET");
      expect(out).toContain("cannot hide what rule Read(~/**/.env) names");
      // Control: a rule the walk covers (inside the project) keeps the script running unasked.
      writeFileSync(settings, JSON.stringify({ permissions: { deny: ["Read(**/.env)"] } }));
      const covered = startExec(["--cwd", project, "--settings", settings], { env });
      expect(text(await covered.turn(call("b", "./show.sh")))).toContain("shown");
      await covered.end();
    });
  }, 60_000);
});

describe.skipIf(skipReason !== undefined)("outside the sandbox only with a person's yes", () => {
  it("dangerouslyDisableSandbox asks in bypassPermissions too (no approver here: not run); the user's own allowUnsandboxedCommands lets it run", async () => {
    await withTempDir(async (root) => {
      const project = join(root, "project");
      const outside = join(root, "outside");
      mkdirSync(project);
      mkdirSync(outside);
      const unsandboxed = [{ type: "tool_use", id: "a", name: "Bash", input: { command: `echo out > ${outside}/x.txt && echo wrote`, dangerouslyDisableSandbox: true } }];
      const exec = startExec(["--cwd", project, "--mode", "bypassPermissions"]);
      const out = text(await exec.turn(unsandboxed));
      await exec.end();
      expect(out).toContain("Run outside the OS sandbox");
      expect(existsSync(join(outside, "x.txt"))).toBe(false);
      // A project's settings cannot say it: trusted or not, only the user's own levels may.
      mkdirSync(join(project, ".armature"));
      writeFileSync(join(project, ".armature", "settings.json"), JSON.stringify({ sandbox: { allowUnsandboxedCommands: true } }));
      const fromProject = startExec(["--cwd", project, "--mode", "bypassPermissions"]);
      expect(text(await fromProject.turn(unsandboxed))).toContain("Run outside the OS sandbox");
      await fromProject.end();
      expect(existsSync(join(outside, "x.txt"))).toBe(false);
      // Control: the user's settings allow it explicitly.
      const settings = join(root, "user.json");
      writeFileSync(settings, JSON.stringify({ sandbox: { allowUnsandboxedCommands: true } }));
      const allowed = startExec(["--cwd", project, "--mode", "bypassPermissions", "--settings", settings]);
      expect(text(await allowed.turn(unsandboxed))).toContain("wrote");
      await allowed.end();
      expect(readFileSync(join(outside, "x.txt"), "utf8")).toBe("out\n");
    });
  }, 60_000);

  it("an excluded git judged read-only runs outside without the repository's hooks; an approved commit still runs them (control)", async () => {
    await withTempDir(async (root) => {
      const project = join(root, "project");
      execFileSync("git", ["init", "-q", "-b", "main", project]);
      const git = (...args: string[]): string => execFileSync("git", ["-C", project, "-c", "user.name=t", "-c", "user.email=t@example.com", ...args], { encoding: "utf8" });
      writeFileSync(join(project, "a.txt"), "a\n");
      git("add", "a.txt");
      git("commit", "-qm", "a");
      // A program git starts on a read: a hook after the index is refreshed. (A configured
      // fsmonitor makes the call ask: the analysis reads the repository's config.)
      const hooks = join(project, ".git", "hooks");
      writeFileSync(join(hooks, "post-index-change"), `#!/bin/sh\ntouch ${root}/hook-ran\n`);
      writeFileSync(join(hooks, "pre-commit"), `#!/bin/sh\ntouch ${root}/pre-commit-ran\n`);
      for (const f of [join(hooks, "post-index-change"), join(hooks, "pre-commit")]) chmodSync(f, 0o755);
      const settings = join(root, "user.json");
      writeFileSync(settings, JSON.stringify({ sandbox: { excludedCommands: ["git"] } }));
      writeFileSync(join(project, "a.txt"), "changed\n");
      const exec = startExec(["--cwd", project, "--settings", settings], { env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@example.com", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@example.com" } });
      expect(text(await exec.turn(call("a", "git status --short")))).toContain("a.txt");
      expect(existsSync(join(root, "hook-ran")), "post-index-change").toBe(false);
      await exec.end();
      // Control: a commit (not read-only) asks; approved by the mode, it runs as the user's git would.
      const commit = startExec(["--cwd", project, "--mode", "bypassPermissions", "--settings", settings], { env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@example.com", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@example.com" } });
      expect(text(await commit.turn(call("b", "git commit -am changed")))).toContain("1 file changed");
      await commit.end();
      expect(existsSync(join(root, "pre-commit-ran"))).toBe(true);
    });
  }, 60_000);
});
