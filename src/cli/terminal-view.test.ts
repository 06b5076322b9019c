// The interactive terminal as a person sees it: a real pseudo-terminal (python3's pty module,
// test/pty-run.py) running the built CLI against the scripted model server, keys typed in.
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { realpath } from "node:fs/promises";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { anthropicReply, startMockModelServer, type MockModelServer } from "../../test/mock-model-server.js";
import { withTempDir } from "../../test/helpers.js";
import { callLine, resultLines } from "./terminal-view.js";

const BIN = resolve(import.meta.dirname, "../../bin/armature.js");
const PTY = resolve(import.meta.dirname, "../../test/pty-run.py");
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;
/** The screen as read: the spinner's redraws (`\r…` up to an erase-line) gone, then every escape. */
const plain = (text: string): string => text.replace(/\r[^\r\n]*\x1b\[K/g, "").replace(ANSI, "").replace(/\r/g, "");

let server: MockModelServer | undefined;
let child: ChildProcess | undefined;
afterEach(async () => {
  if (child && child.exitCode === null) child.kill("SIGKILL");
  await server?.close();
  server = undefined;
});

/** `armature agent` on a pseudo-terminal: what it shows (raw, with escapes), keys to type, its exit. */
function onPty(args: string[], cwd: string, env: Record<string, string>) {
  const base: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== "NO_COLOR") base[k] = v;
  child = spawn("python3", [PTY, process.execPath, BIN, ...args], { cwd, env: { ...base, ANTHROPIC_API_KEY: "k", ...env }, stdio: ["pipe", "pipe", "inherit"] });
  let screen = "";
  child.stdout!.on("data", (d: Buffer) => (screen += d.toString("utf8")));
  const exited = new Promise<number | null>((r) => child!.on("exit", (code) => r(code)));
  return {
    screen: () => screen,
    type: (keys: string) => child!.stdin!.write(keys),
    exited,
    /** Waits until the screen as read (or, `raw`, the bytes shown, spinner included) matches. */
    async waitFor(test: RegExp, raw = false): Promise<void> {
      const deadline = Date.now() + 30_000;
      while (!test.test(raw ? screen : plain(screen))) {
        if (Date.now() > deadline) throw new Error(`never saw ${test}; the terminal showed:\n${plain(screen)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}

/** The model reads note.txt, edits it, reads a missing file, then answers; the next prompt's reply never ends. */
function script(dir: string) {
  return [
    anthropicReply([{ type: "text", text: "Looking." }, { type: "tool_use", id: "r1", name: "Read", input: { file_path: join(dir, "note.txt") } }]),
    anthropicReply([{ type: "tool_use", id: "e1", name: "Edit", input: { file_path: join(dir, "note.txt"), old_string: "alpha", new_string: "beta" } }]),
    anthropicReply([{ type: "tool_use", id: "m1", name: "Read", input: { file_path: join(dir, "missing.txt") } }]),
    anthropicReply([{ type: "text", text: "All done: alpha is now beta." }]),
    { ...anthropicReply([{ type: "text", text: "Thinking it over" }], { noStop: true }), hang: true },
  ];
}

describe("the interactive terminal, on a real pseudo-terminal", () => {
  it("streams text, one line per call with a short result, a coloured diff, errors without tags, a spinner; Ctrl-C interrupts, a second exits", async () => {
    await withTempDir(async (raw) => {
      const dir = await realpath(raw);
      writeFileSync(join(dir, "note.txt"), "alpha\ngamma\n");
      server = await startMockModelServer(script(dir));
      const pty = onPty(["agent", "--base-url", server.url, "--cwd", dir, "--mode", "acceptEdits"], dir, { TERM: "xterm-256color" });
      await pty.waitFor(/> $/m);
      pty.type("fix the note\r");
      await pty.waitFor(/All done: alpha is now beta\./);
      expect(readFileSync(join(dir, "note.txt"), "utf8")).toBe("beta\ngamma\n");
      const shown = plain(pty.screen());
      expect(shown).toContain("Looking.");
      expect(shown).toMatch(/Looking\.\n⏺ Read\(note\.txt\)\n {2}⎿ {2}Read \d lines\n⏺ Edit/);
      expect(shown).toMatch(/⏺ Edit\(note\.txt\)\n {2}⎿ {2}Added 1 line, removed 1 line\n {5}-alpha\n {5}\+beta\n/);
      expect(shown).toMatch(/⏺ Read\(missing\.txt\)\n {2}⎿ {2}File does not exist/);
      expect(shown).toMatch(/\nAll done: alpha is now beta\.\n/);
      expect(shown).not.toContain("tool_use_error");
      expect(shown).not.toContain('{"file_path"');
      expect(pty.screen()).toContain("working…");
      // The diff in colour: removed red, added green.
      expect(pty.screen()).toContain("\x1b[31m-alpha");
      expect(pty.screen()).toContain("\x1b[32m+beta");

      pty.type("and now?\r");
      await pty.waitFor(/Thinking it over/);
      pty.type("\x03");
      await pty.waitFor(/\[interrupted\] \(Ctrl-C again to exit\)/);
      await pty.waitFor(/> $/m);
      pty.type("\x03");
      expect(await pty.exited).toBe(0);
    });
  }, 90_000);

  it("shows a spinner while the model works; NO_COLOR leaves the colours out", async () => {
    await withTempDir(async (raw) => {
      const dir = await realpath(raw);
      server = await startMockModelServer([{ ...anthropicReply([]), chunks: [], hang: true }]);
      const pty = onPty(["agent", "--base-url", server.url, "--cwd", dir], dir, { TERM: "xterm-256color", NO_COLOR: "1" });
      await pty.waitFor(/> $/m);
      pty.type("hello\r");
      await pty.waitFor(/\r⠋ working… \(0s · Ctrl-C to interrupt\)\x1b\[K/, true);
      await pty.waitFor(/\r⠙ working…/, true);
      pty.type("\x03");
      await pty.waitFor(/\[interrupted\]/);
      pty.type("\x04");
      expect(await pty.exited).toBe(0);
      expect(pty.screen()).not.toMatch(/\x1b\[(1|2|31|32|36)m/);
    });
  }, 90_000);
});

describe("call and result lines", () => {
  const style = { color: false };
  it.each([
    ["Bash", { command: "npm test\nnpm run lint" }, "Bash(npm test)"],
    ["Read", { file_path: "/p/src/a.ts" }, "Read(src/a.ts)"],
    ["Read", { file_path: "/elsewhere/a.ts" }, "Read(/elsewhere/a.ts)"],
    ["Grep", { pattern: "TODO", path: "/p/src" }, 'Grep("TODO" in src)'],
    ["WebFetch", { url: "https://example.com", prompt: "summarise" }, "WebFetch(https://example.com)"],
    ["TodoWrite", { todos: [{}, {}] }, "TodoWrite(2 items)"],
    ["mcp__fx__add", { a: 1, b: 2 }, 'mcp__fx__add({"a":1,"b":2})'],
  ])("%s %j → %s", (name, input, line) => {
    expect(callLine(name, input, "/p")).toBe(line);
  });

  it("results: an error's first line without tags, Bash's first output line and the count of the rest", () => {
    const error = { type: "tool_result" as const, tool_use_id: "x", content: "<tool_use_error>File does not exist.\nCheck the path.</tool_use_error>", is_error: true };
    expect(resultLines("Read", error, undefined, style)).toEqual(["File does not exist. (+1 lines)"]);
    const ok = { type: "tool_result" as const, tool_use_id: "x", content: "" };
    expect(resultLines("Bash", ok, { stdout: "one\ntwo\nthree\n", stderr: "" }, style)).toEqual(["one … +2 lines"]);
    expect(resultLines("Bash", ok, { stdout: "", stderr: "" }, style)).toEqual(["(no output)"]);
  });
});
