import { afterAll, describe, expect, it } from "vitest";
import { mountSmallDisk, runFullDisk, type SmallDisk } from "../../test/file-tools/full-disk.js";

// A bounded slice of the full-disk suite; `npm run fuzz` runs 1,000 writes (full-disk.fuzz.test.ts).
const disk = mountSmallDisk(512 * 1024);
const skip = typeof disk === "string" ? disk : undefined;
if (skip !== undefined) console.warn(`full-disk suite skipped: ${skip}`);

describe.skipIf(skip !== undefined)(`a full disk never cuts a file${skip !== undefined ? ` (skipped: ${skip})` : ""}`, () => {
  afterAll(() => (disk as SmallDisk).unmount());

  it("60 writes at random fill levels: old or new content, every refusal names ENOSPC, no temp file left", async () => {
    const report = await runFullDisk(disk as SmallDisk, 60, 27);
    expect(report.truncated).toEqual([]);
    expect(report.unexplained).toEqual([]);
    expect(report.leftovers).toEqual([]);
    // Both outcomes happen at these fill levels, or the suite tests nothing.
    expect(report.refused).toBeGreaterThan(5);
    expect(report.succeeded).toBeGreaterThan(5);
  });
});
