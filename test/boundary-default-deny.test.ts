// Issue 34: the boundary denies by default. Each attack class runs through `armature exec` with
// the sandbox on and must have no effect, beside a benign control that keeps working: no host Unix
// socket can be reached, the host's /tmp is neither seen nor written, a bwrap planted on PATH is
// not the sandbox, a FIFO in the report folder does not hang armature.
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
