// Differential test of the sed, awk and jq tokenizers against the real interpreters (GNU sed,
// mawk, gawk, jq): every generated program the tokenizer calls safe runs in a throwaway
// directory with sentinels, and must not execute, write, load a module or read an unreported
// file (see test/lang-differential.ts). A bounded sweep; `npm run fuzz` runs a long one.
import { afterAll, describe, expect, it } from "vitest";
import { Sandbox, available, differential, type Figures, type Language } from "../../../test/lang-differential.js";

const sandbox = new Sandbox();
afterAll(() => sandbox.dispose());

const cases: Array<[language: "sed" | "awk" | "jq", interpreters: Language[], count: number]> = [
  ["sed", ["sed"], 200],
  ["awk", ["mawk", "gawk"], 120],
  ["jq", ["jq"], 100],
];

const report = (language: string, f: Figures): void => {
  console.log(
    `${language} differential: ${f.generated} programs generated, ${f.safe} judged safe, ${f.runs} interpreter runs, ` +
      `${f.flaggedWithEffect} flagged runs with a real effect, ${f.violations.length} violations`,
  );
};

describe("embedded-language tokenizers against the real interpreters", () => {
  it.each(cases)("%s", async (language, interpreters, count) => {
    const present = interpreters.filter(available);
    const missing = interpreters.filter((i) => !present.includes(i));
    if (missing.length > 0) console.log(`${language} differential: ${missing.join(", ")} not installed here; not run against ${missing.join(", ")}`);
    if (present.length === 0) return;
    const f = await differential(sandbox, language, present, 8, count, 20);
    report(language, f);
    expect(f.violations).toEqual([]);
    expect(f.safe).toBeGreaterThan(count / 5);
    // The generator reaches real attacks: some flagged programs really wrote, ran or read.
    expect(f.flaggedWithEffect).toBeGreaterThan(0);
  }, 240_000);
});
