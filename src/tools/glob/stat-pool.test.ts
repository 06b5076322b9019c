import { lstatSync, statSync } from "node:fs";
import { mkdir, mkdtemp, rm, symlink, utimes, writeFile } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStamper, PathKind, startStatHelpers, STAT_HELPERS_FROM, stopStatHelpers, type PathStamps } from "./stat-pool.js";

// Enough paths that helper threads take part (from STAT_HELPERS_FROM on), with every kind of entry.
const FILES = STAT_HELPERS_FROM + 1_500;
let dir: string;
let paths: string[];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "armature-stat-pool-"));
  paths = [];
  for (let d = 0; d < 10; d++) await mkdir(join(dir, `d${d}`));
  for (let i = 0; i < FILES; i++) {
    const path = join(dir, `d${i % 10}`, `f${i}.txt`);
    await writeFile(path, "");
    await utimes(path, 1_700_000_000 + (i % 97), 1_700_000_000 + (i % 97));
    paths.push(path);
  }
  await mkdir(join(dir, "folder"));
  await symlink(paths[0]!, join(dir, "to-file"));
  await symlink(join(dir, "folder"), join(dir, "to-folder"));
  await symlink(join(dir, "nowhere"), join(dir, "dangling"));
  await symlink(join(dir, "loop"), join(dir, "loop"));
  // Specials spread over several batches, one of them last.
  const specials = ["folder", "to-file", "to-folder", "dangling", "loop", "missing"].map((n) => join(dir, n));
  specials.forEach((p, k) => paths.splice(k * 700, 0, p));
  paths.push(join(dir, "missing-at-the-end"));
});
afterAll(async () => {
  await stopStatHelpers();
  await rm(dir, { recursive: true, force: true });
});

/** What each path is, worked out one by one with the plain fs calls. */
function expected(path: string): { kind: number; mtime?: number } {
  let own;
  try {
    own = lstatSync(path);
  } catch {
    return { kind: PathKind.Gone };
  }
  if (!own.isSymbolicLink()) return own.isDirectory() ? { kind: PathKind.Directory, mtime: own.mtimeMs } : { kind: PathKind.File, mtime: own.mtimeMs };
  let target;
  try {
    target = statSync(path);
  } catch {
    return { kind: PathKind.Symlink, mtime: own.mtimeMs };
  }
  return target.isDirectory() ? { kind: PathKind.Directory, mtime: target.mtimeMs } : { kind: PathKind.Symlink, mtime: target.mtimeMs };
}

async function stamp(list: readonly string[], beforeFinish?: () => Promise<void>): Promise<PathStamps> {
  const stamper = createStamper();
  for (const p of list) stamper.add(p);
  await beforeFinish?.();
  return stamper.finish(new AbortController().signal);
}

function expectExact(out: PathStamps, list: readonly string[]): void {
  expect(out.paths).toEqual(list);
  const want = list.map(expected);
  expect(Array.from(out.kinds)).toEqual(want.map((w) => w.kind));
  want.forEach((w, i) => {
    if (w.mtime !== undefined) expect(out.mtimes[i]).toBe(w.mtime);
  });
}

describe("createStamper", () => {
  it("stats a few paths on the calling thread", async () => {
    const list = paths.slice(0, 50);
    const out = await stamp(list);
    expectExact(out, list);
    expect(out.byHelpers).toBe(0);
  });

  it("every kind of entry, the same whichever thread stats it", async () => {
    // The first large call runs alone and starts the helpers once it is done; later ones use them.
    await stopStatHelpers();
    const alone = await stamp(paths);
    expectExact(alone, paths);
    expect(alone.byHelpers).toBe(0);
    expect(await startStatHelpers()).toBe(availableParallelism() > 1);
    // Batches are handed to a helper as they fill; the caller takes back those it has not begun yet.
    // A pause before `finish` lets the helper begin (on a loaded machine it may need a few tries).
    let out = await stamp(paths, () => new Promise((resolve) => setTimeout(resolve, 50)));
    for (let i = 0; i < 20 && out.byHelpers === 0 && availableParallelism() > 1; i++) {
      out = await stamp(paths, () => new Promise((resolve) => setTimeout(resolve, 200)));
    }
    expectExact(out, paths);
    if (availableParallelism() > 1) expect(out.byHelpers).toBeGreaterThan(0);
    expect(out.kinds.filter((k) => k === PathKind.Symlink)).toHaveLength(3); // to-file, dangling, loop
  });

  it("helpers that stop while holding batches: the caller does those batches", async () => {
    await stamp(paths); // helpers running
    for (let round = 0; round < 3; round++) {
      const out = await stamp(paths, () => stopStatHelpers());
      expectExact(out, paths);
    }
  });

  it("an aborted finish rejects", async () => {
    const stamper = createStamper();
    for (const p of paths) stamper.add(p);
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    await expect(stamper.finish(controller.signal)).rejects.toThrow("stop");
  });
});
