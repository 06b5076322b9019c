import { describe, expect, it } from "vitest";
import { fuzzCorpus } from "./fuzz-corpus.js";

/** The long run (`npm run fuzz`): many seeds, deeper mutation chains. FUZZ_SEEDS sets how many. */
const SEEDS = Number(process.env.FUZZ_SEEDS ?? 8);

describe("fuzzed security corpus (long)", () => {
  for (let k = 0; k < SEEDS; k++) {
    const seed = 1_000 + k * 7_919;
    it(`seed ${seed}: no semantics-preserving mutation of an attack is allowed`, async () => {
      const r = await fuzzCorpus({ seed, mutations: 4, depth: 4 });
      console.log(`fuzz seed ${seed}: ${r.attacksRun} attack mutations, ${r.allowed.length} allowed, ${r.optionAllowed.length} option-operator holes`);
      for (const f of r.optionAllowed) console.log(`  option hole: ${f.id}|${f.command}`);
      expect(r.errors).toEqual([]);
      expect(r.allowed.map((f) => `${f.id} [${f.operator}] ${JSON.stringify(f.command)}`)).toEqual([]);
    }, 600_000);
  }
});
