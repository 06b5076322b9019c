import { describe, expect, it } from "vitest";
import { namedOutputs, namesSessionFile } from "./named-outputs.js";

const dir = "/tmp/armature-exec-1";
const line = (text: string): string => JSON.stringify({ role: "user", content: [{ type: "tool_result", content: text }] });

describe("what a result line names in the session folder", () => {
  it.each([
    ["a saved output", `Full output saved to ${dir}/shell-output/b1.output.`, true],
    ["a saved result", `saved to ${dir}/tool-results/x.json`, true],
    ["a plan", `${dir}/plans/p.md`, true],
    ["the shell's report file in an error message", `bash: ${dir}/shell-cwd/f26: Is a directory`, false],
    ["another folder whose name starts the same", `${dir}0/shell-output/b1.output`, false],
    ["nothing", "hello", false],
  ])("%s", (_, text, expected) => {
    expect(namesSessionFile(line(text), dir)).toBe(expected);
  });

  it("a report file beside a saved output: the output counts", () => {
    expect(namesSessionFile(line(`${dir}/shell-cwd/a and ${dir}/shell-output/b.output`), dir)).toBe(true);
  });

  it("the output names, up to a sentence's full stop", () => {
    const into = new Set<string>();
    namedOutputs(line(`see ${dir}/shell-output/b1.output. and ${dir}/shell-output/c2.output`), dir, into);
    expect([...into].sort()).toEqual(["b1.output", "c2.output"]);
  });
});
