// The interactive loop on a real pseudo-terminal (util-linux `script`), driving the built CLI.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { anthropicReply, startMockModelServer, type MockModelServer } from "../../test/mock-model-server.js";
import { withTempDir } from "../../test/helpers.js";

const bin = fileURLToPath(new URL("../../bin/armature.js", import.meta.url));
const hasScript = spawnSync("script", ["--version"]).status === 0;

let server: MockModelServer | undefined;
let child: ChildProcess | undefined;
afterEach(async () => {
  if (child && child.exitCode === null) child.kill("SIGKILL");
  await server?.close();
  server = undefined;
});

function startOnPty(args: string[], cwd: string): { output: () => string; send: (text: string) => void; waitFor: (re: RegExp) => Promise<void>; exited: Promise<number | null> } {
  const command = [process.execPath, bin, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
  child = spawn("script", ["-qfec", command, "/dev/null"], { cwd, env: { ...process.env, ANTHROPIC_API_KEY: "k", TERM: "dumb" }, stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  const waiters: Array<() => void> = [];
  const onData = (d: Buffer): void => {
    out += d.toString("utf8");
    for (const w of waiters.splice(0)) w();
  };
  child.stdout!.on("data", onData);
  child.stderr!.on("data", onData);
  const exited = new Promise<number | null>((resolve) => child!.on("exit", (code) => resolve(code)));
  const waitFor = async (re: RegExp): Promise<void> => {
    const deadline = Date.now() + 20_000;
    while (!re.test(out)) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${re}; output so far:\n${out}`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  };
  return { output: () => out, send: (text) => child!.stdin!.write(text), waitFor, exited };
}

describe.skipIf(!hasScript || !existsSync(bin))("armature agent, interactive on a pseudo-terminal", () => {
  it("streams text, shows one line per tool call, asks y/n/always, Ctrl-C interrupts a turn, Ctrl-D exits", async () => {
    await withTempDir(async (dir) => {
      server = await startMockModelServer([
        anthropicReply([{ type: "text", text: "Creating it." }, { type: "tool_use", id: "t1", name: "Bash", input: { command: "touch made.txt" } }]),
        anthropicReply([{ type: "text", text: "Done: made.txt exists." }]),
        { ...anthropicReply([{ type: "text", text: "thinking forever" }], { noStop: true }), hang: true },
      ]);
      const pty = startOnPty(["agent", "--base-url", server.url, "--cwd", dir], dir);
      await pty.waitFor(/> $/m);
      pty.send("please create made.txt\r");
      await pty.waitFor(/Allow\?/);
      expect(pty.output()).toContain("⏺ Bash");
      pty.send("y\r");
      await pty.waitFor(/Done: made\.txt exists\./);
      expect(existsSync(join(dir, "made.txt"))).toBe(true);
      pty.send("next\r");
      await pty.waitFor(/thinking forever/);
      pty.send("\x03");
      await pty.waitFor(/\[interrupted\]/);
      await pty.waitFor(/> $/m);
      pty.send("\x04");
      expect(await pty.exited).toBe(0);
    });
  }, 60_000);

  it("Ctrl-C while an approval waits abandons the question: the next line is the next prompt, not its answer", async () => {
    await withTempDir(async (dir) => {
      server = await startMockModelServer([
        anthropicReply([{ type: "tool_use", id: "t1", name: "Bash", input: { command: "touch first.txt" } }]),
        anthropicReply([{ type: "text", text: "Second turn answered." }]),
      ]);
      const pty = startOnPty(["agent", "--base-url", server.url, "--cwd", dir], dir);
      await pty.waitFor(/> $/m);
      pty.send("make first.txt\r");
      await pty.waitFor(/Allow\?/);
      // Typed at once, before the interrupted turn has wound down: "y" answered the abandoned
      // approval before, and was lost as a prompt.
      pty.send("\x03y\r");
      await pty.waitFor(/Second turn answered\./);
      expect(existsSync(join(dir, "first.txt"))).toBe(false);
      const last = server.requests.at(-1)!;
      expect(JSON.stringify(last.body)).toMatch(/"text":"y"/);
      pty.send("\x04");
      expect(await pty.exited).toBe(0);
    });
  }, 60_000);
});
