import { afterAll, describe, expect, it } from "vitest";
import { mountSmallDisk, runFullDisk, type SmallDisk } from "../../test/file-tools/full-disk.js";

// `npm run fuzz`: 1,000 writes at random fill levels (FULL_DISK_WRITES, FULL_DISK_SEED change them).
const WRITES = Number(process.env.FULL_DISK_WRITES ?? 1000);
const SEED = Number(process.env.FULL_DISK_SEED ?? 2027);
const disk = mountSmallDisk(2 * 1024 * 1024);
const skip = typeof disk === "string" ? disk : undefined;
if (skip !== undefined) console.warn(`full-disk suite skipped: ${skip}`);

describe.skipIf(skip !== undefined)(`full disk, long run${skip !== undefined ? ` (skipped: ${skip})` : ""}`, () => {
  afterAll(() => (disk as SmallDisk).unmount());

  it(`${WRITES} writes (seed ${SEED}): 0 truncated files`, async () => {
    const report = await runFullDisk(disk as SmallDisk, WRITES, SEED);
    console.log(`full disk: ${report.writes} writes, ${report.succeeded} written, ${report.refused} refused (ENOSPC), ${report.truncated.length} truncated`);
    expect(report.truncated).toEqual([]);
    expect(report.unexplained).toEqual([]);
    expect(report.leftovers).toEqual([]);
  });
});
