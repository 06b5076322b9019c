import { describe, expect, it } from "vitest";
import { probeSandbox } from "../src/sandbox/probe.js";
import { assertRaced, runShellRace, type ShellWrite } from "./shell-race.js";

// `npm run fuzz`: 10,000 raced calls per form (SHELL_RACE_CALLS changes it).
const CALLS = Number(process.env.SHELL_RACE_CALLS ?? 10_000);
const probe = probeSandbox({ ...process.env, ARMATURE_SANDBOX_BWRAP: "" });

describe.skipIf(!probe.available)("raced shell writes under the sandbox, long run", () => {
  for (const op of [">", ">>", "cp"] as ShellWrite[]) {
    it(`${op}, ${CALLS} calls: 0 writes outside`, async () => {
      const r = await runShellRace(op, CALLS);
      console.log(`shell race ${op}: ${CALLS} calls, ${r.written} written, ${r.failed} failed ${JSON.stringify(r.failures)}, ${r.outside.length} outside`);
      expect(r.sandboxed).toBe(true);
      expect(r.outside).toEqual([]);
      expect(r.written + r.failed).toBe(CALLS);
      assertRaced(r);
    });
  }
});
