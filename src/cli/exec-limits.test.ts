// exec's edges under bad conditions: a line over the limit, a state folder that cannot be saved.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { PassThrough } from "node:stream";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { captureIO, toolUse, withTempDir } from "../../test/helpers.js";
import { execCommand } from "./exec.js";
import { boundedLines, LineReader, OversizedLine } from "./io.js";
import { namedOutputs } from "./named-outputs.js";

describe("bounded stdin lines", () => {
  it("a line over the limit is reported by its size, its bytes dropped as they came; the lines around it are whole", async () => {
    const input = new PassThrough();
    const got: Array<string | OversizedLine> = [];
    const ended = new Promise<void>((resolve) => boundedLines(input, 8, (l) => got.push(l), resolve));
    input.write("short\r\nway too long ");
    input.write("for the limit\nok\n");
    input.write("12345678\n123456789\nlast");
    input.end();
    await ended;
    expect(got).toEqual(["short", new OversizedLine(26, 8), "ok", "12345678", new OversizedLine(9, 8), "last"]);
  });

  it("exec answers an oversized line with its error line and runs the next lines", async () => {
    await withTempDir(async (dir) => {
      const input = new PassThrough();
      const io = captureIO();
      io.stdinLines = () => new LineReader(input, 4096).lines();
      const turn = (text: string): string => JSON.stringify([toolUse("Bash", { command: `echo ${text}` }, `id_${text}`)]);
      input.write(`${turn("before")}\n`);
      input.write(`${JSON.stringify([toolUse("Bash", { command: `echo ${"x".repeat(10_000)}` })])}\n`);
      input.end(`${turn("after")}\n`);
      const code = await execCommand(["--cwd", dir, "--mode", "bypassPermissions"], io);
      const lines = io.out.trim().split("\n").map((l) => JSON.parse(l) as { error?: string; content?: Array<{ content: string }> });
      expect(code).toBe(2);
      expect(lines).toHaveLength(3);
      expect(lines[0]!.content![0]!.content).toContain("before");
      expect(lines[1]!.error).toMatch(/^line 2: 100\d\d bytes, over the limit of 4096 bytes a line \(ARMATURE_EXEC_MAX_LINE_BYTES sets it\)/);
      expect(lines[2]!.content![0]!.content).toContain("after");
    });
  });
});

describe("a state that cannot be saved", () => {
  it("is an error line after the turn's result, and the next turns still run", async () => {
    await withTempDir(async (dir) => {
      const state = join(dir, "state");
      const project = join(dir, "p");
      mkdirSync(project);
      // The first turn puts a folder where the state file goes: its save and the next one fail.
      const turns = [
        [toolUse("Bash", { command: `rm -f '${state}/state.json' && mkdir '${state}/state.json'` }, "t1")],
        [toolUse("Bash", { command: "echo second" }, "t2")],
        [toolUse("Bash", { command: `rmdir '${state}/state.json' && echo third` }, "t3")],
      ];
      const io = captureIO(turns.map((t) => JSON.stringify(t)).join("\n") + "\n");
      // The session folder is armature's, not the command's: made writable here by a setting.
      const settings = join(dir, "settings.json");
      writeFileSync(settings, JSON.stringify({ sandbox: { filesystem: { allowWrite: [state] } } }));
      mkdirSync(state);
      const code = await execCommand(["--cwd", project, "--mode", "bypassPermissions", "--session-dir", state, "--settings", settings], io);
      const lines = io.out.trim().split("\n").map((l) => JSON.parse(l) as { error?: string; turn?: number; content?: Array<{ content: string }> });
      expect(code).toBe(0);
      expect(lines.map((l) => (l.error !== undefined ? `error ${l.turn}` : "result"))).toEqual(["result", "error 1", "result", "error 2", "result"]);
      expect(lines[1]!.error).toMatch(new RegExp(`^turn 1: the session state could not be saved in ${state}: .*state\\.json.*The next turns go on`));
      expect(lines[4]!.content![0]!.content).toContain("third");
      expect(io.err).toContain("armature: turn 1: the session state could not be saved");
      rmSync(state, { recursive: true, force: true });
    });
  });
});

describe("full Bash outputs at the end of a run", () => {
  it("the ones a result names stay for later reading, the others are removed; an earlier run's stay", async () => {
    await withTempDir(async (dir) => {
      const state = join(dir, "state");
      const project = join(dir, "p");
      mkdirSync(project);
      const run = async (turn: unknown[]): Promise<string> => {
        const io = captureIO(`${JSON.stringify(turn)}\n`);
        expect(await execCommand(["--cwd", project, "--mode", "bypassPermissions", "--session-dir", state], io)).toBe(0);
        return io.out;
      };
      const out = await run([toolUse("Bash", { command: "echo small" }, "a"), toolUse("Bash", { command: "seq 1 40000" }, "b")]);
      const named = readdirSync(join(state, "shell-output"));
      expect(named).toHaveLength(1);
      expect(out).toContain(join(state, "shell-output", named[0]!));
      await run([toolUse("Bash", { command: "echo again" }, "c")]);
      expect(readdirSync(join(state, "shell-output"))).toEqual(named);
    });
  });
});

describe("namedOutputs", () => {
  it("reads the names a result line gives, JSON-escaped, without a sentence's full stop", () => {
    const named = new Set<string>();
    const line = JSON.stringify({ content: "Output is being written to: /s/shell-output/b1.output. You will be notified; see /s/shell-output/x_2.output\n/other/shell-output/no.output" });
    namedOutputs(line, "/s", named);
    expect([...named]).toEqual(["b1.output", "x_2.output"]);
  });
});
