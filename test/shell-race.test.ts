import { describe, expect, it } from "vitest";
import { probeSandbox } from "../src/sandbox/probe.js";
import { assertRaced, runShellRace } from "./shell-race.js";

const probe = probeSandbox({ ...process.env, ARMATURE_SANDBOX_BWRAP: "" });

describe.skipIf(!probe.available)("the shell race suite under the sandbox, bounded (npm run fuzz runs 10,000 per form)", () => {
  for (const op of [">", ">>", "cp"] as const) {
    it(`${op} into a name a racer flips to links outside: 30 calls, some written, some refused, 0 writes outside`, async () => {
      const r = await runShellRace(op, 30);
      expect(r.sandboxed).toBe(true);
      expect(r.outside).toEqual([]);
      expect(r.written + r.failed).toBe(30);
      assertRaced(r);
    }, 120_000);
  }
});
