import { describe, expect, it } from "vitest";
import { runRace, type RaceKind, type RacedTool } from "../../test/file-tools/write-race.js";

// `npm run fuzz`: 10,000 raced calls per tool and race (WRITE_RACE_CALLS changes it).
const CALLS = Number(process.env.WRITE_RACE_CALLS ?? 10_000);
const TOOLS: RacedTool[] = ["Write", "Edit", "MultiEdit", "NotebookEdit"];
const KINDS: RaceKind[] = ["symlink", "parent"];

describe("raced writes, long run", () => {
  for (const kind of KINDS) {
    for (const tool of TOOLS) {
      it(`${tool}, ${kind} race, ${CALLS} calls: 0 writes outside`, async () => {
        const r = await runRace(kind, tool, CALLS);
        console.log(`write race ${kind}/${tool}: ${CALLS} calls, ${r.written} written, ${r.refused} refused, ${r.outside.length} outside`);
        expect(r.outside).toEqual([]);
        expect(r.written + r.refused).toBe(CALLS);
        expect(r.written, "some raced calls wrote").toBeGreaterThan(0);
        expect(r.refused, "some raced calls met the racer").toBeGreaterThan(0);
      });
    }
  }
});
