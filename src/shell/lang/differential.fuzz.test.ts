// The long sweep of the embedded-language differential test (`npm run fuzz`): many seeds,
// every flagged program run too. Not part of `npm test`.
import { afterAll, describe, expect, it } from "vitest";
import { Sandbox, available, differential, type Language } from "../../../test/lang-differential.js";

const sandbox = new Sandbox();
afterAll(() => sandbox.dispose());

const seeds = Number(process.env.ARMATURE_FUZZ_SEEDS ?? 6);
const count = Number(process.env.ARMATURE_FUZZ_PROGRAMS ?? 400);

describe("embedded-language tokenizers: long differential sweep", () => {
  const languages: Array<["sed" | "awk" | "jq", Language[]]> = [["sed", ["sed"]], ["awk", ["mawk", "gawk"]], ["jq", ["jq"]]];
  for (const [language, interpreters] of languages) {
    it(language, async () => {
      const present = interpreters.filter(available);
      if (present.length === 0) return;
      let generated = 0;
      let safe = 0;
      let effects = 0;
      for (let seed = 1000; seed < 1000 + seeds; seed++) {
        const f = await differential(sandbox, language, present, seed, count, 1);
        generated += f.generated;
        safe += f.safe;
        effects += f.flaggedWithEffect;
        expect(f.violations, `seed ${seed}`).toEqual([]);
      }
      console.log(`${language} fuzz: ${generated} programs, ${safe} judged safe, ${effects} flagged runs with a real effect, 0 violations`);
    }, 3_600_000);
  }
});
