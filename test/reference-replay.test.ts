// Calls recorded from the reference agent (cc-2.1.332, `-p --output-format stream-json`, the
// scenario "c9-stream-json": a file notes.txt holding "one\ntwo\nthree\n"), replayed through a
// session with the same tools: the result text and is_error must be the reference's.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { builtinTools } from "../src/tools/index.js";
import { createSession } from "../src/session/session.js";
import { withTempDir } from "./helpers.js";

interface Recorded {
  name: string;
  /** `$DIR` stands for the scenario's folder. */
  input: Record<string, unknown>;
  content: string;
  isError: boolean;
}

const RECORDED: Recorded[] = [
  { name: "Read", input: { file_path: "$DIR/notes.txt" }, content: "1\tone\n2\ttwo\n3\tthree\n4\t", isError: false },
  { name: "Bash", input: { command: "wc -l < notes.txt", description: "Count lines" }, content: "3", isError: false },
  { name: "Bash", input: { command: "exit 2", description: "Fail on purpose" }, content: "Exit code 2", isError: true },
];

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  return (content as Array<{ type: string; text?: string }>).map((b) => b.text ?? "").join("");
}

describe("replay of the reference agent's recorded calls", () => {
  it.each(RECORDED.map((r, i) => [i, r.name, r] as const))("call %i (%s) gives the recorded text and is_error", async (i, _name, rec) => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, "notes.txt"), "one\ntwo\nthree\n");
      const s = createSession({ cwd: dir, tools: builtinTools(), permissionMode: "bypassPermissions" });
      const input = JSON.parse(JSON.stringify(rec.input).replaceAll("$DIR", dir)) as Record<string, unknown>;
      const [result] = await s.runTurn([{ type: "tool_use", id: `toolu_${i}`, name: rec.name, input }]);
      expect(textOf(result!.content)).toBe(rec.content);
      expect(result!.is_error === true).toBe(rec.isError);
      await s.close();
    });
  });
});
