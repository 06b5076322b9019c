import picomatch from "picomatch";
import { describe, expect, it } from "vitest";
import { compileMatcher } from "./crawl.js";
import { selectOldest } from "./oldest.js";

/** The plain way: sort everything kept by (mtime, path), take the first `limit`. */
function bySorting(paths: string[], mtimes: number[], keep: (i: number) => boolean, limit: number): { indices: number[]; total: number } {
  const kept = paths.map((_, i) => i).filter(keep);
  kept.sort((a, b) => mtimes[a]! - mtimes[b]! || (paths[a]! < paths[b]! ? -1 : paths[a]! > paths[b]! ? 1 : 0));
  return { indices: kept.slice(0, limit), total: kept.length };
}

/** A seeded generator, so a failure can be replayed. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1_664_525 + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

describe("selectOldest", () => {
  it.each([
    ["oldest first", ["c", "a", "b"], [3, 1, 2], 2, [1, 2], 3],
    ["equal times by path", ["b", "c", "a"], [5, 5, 5], 3, [2, 0, 1], 3],
    ["code unit order (uppercase first)", ["a", "B", "b"], [1, 1, 1], 3, [1, 0, 2], 3],
    ["fewer than the limit", ["x"], [9], 100, [0], 1],
    ["limit 0 counts but returns nothing", ["x", "y"], [1, 2], 0, [], 2],
    ["nothing", [], [], 100, [], 0],
  ] as const)("%s", (_name, paths, mtimes, limit, indices, total) => {
    expect(selectOldest([...paths], Float64Array.from(mtimes), () => true, limit)).toEqual({ indices, total });
  });

  it("entries not kept are neither returned nor counted", () => {
    expect(selectOldest(["a", "b", "c", "d"], Float64Array.from([1, 2, 3, 4]), (i) => i % 2 === 1, 1)).toEqual({ indices: [1], total: 2 });
  });

  it("agrees with a full sort on random inputs with many ties", () => {
    const random = prng(9);
    for (let round = 0; round < 200; round++) {
      const n = Math.floor(random() * 400);
      const paths = Array.from({ length: n }, () => `d${Math.floor(random() * 5)}/f${Math.floor(random() * 50)}`);
      const mtimes = paths.map(() => Math.floor(random() * 20) * 1000);
      const dropped = new Set(paths.map((_, i) => i).filter(() => random() < 0.1));
      const keep = (i: number): boolean => !dropped.has(i);
      const limit = [0, 1, 5, 100][round % 4]!;
      const got = selectOldest(paths, Float64Array.from(mtimes), keep, limit);
      const want = bySorting(paths, mtimes, keep, limit);
      // Equal (mtime, path) pairs may come in either order: compare what they name.
      expect(got.total).toBe(want.total);
      expect(got.indices.map((i) => `${mtimes[i]} ${paths[i]}`)).toEqual(want.indices.map((i) => `${mtimes[i]} ${paths[i]}`));
    }
  });
});

describe("compileMatcher answers as picomatch(glob, { dot: true }) does", () => {
  const root = "/r";
  const names = [
    "a.ts", "b.js", ".hidden.ts", "sub/c.ts", "sub/.d.ts", ".dir/e.ts", "sub/deep/f.ts", "a.ts.bak", "x.TS", "c.ts/g.txt",
    "!x", "a[1].ts", "a1.ts", "{a}.ts", "file10.ts", "file1.ts", "odd:name-1.txt", "sub/deep/odd:name-1.txt", "(x).ts", "**/(x).ts", "sub/(x).ts", "**/a[1].ts",
  ];
  const globs = [
    "**/*.ts", "*.ts", "**/*", "*", "sub/**/*.ts", "**/.*", "**/!(c).ts", "**/*.{ts,js}", "**/file1?.ts", "**/file1[0-9].ts",
    "**/a[1].ts", "a[1].ts", "**/{a}.ts", "**/!x", "**/sub/*.ts", "**/*.ts/**", "**/(x).ts", "**/odd:name-1.txt", "**/@(a|b).*",
  ];
  it.each(globs)("%s", (glob) => {
    const isMatch = picomatch(glob, { dot: true });
    const test = compileMatcher(glob);
    for (const name of names) {
      const full = `${root}/${name}`;
      const cut = full.lastIndexOf("/") + 1;
      expect([name, test(full.slice(0, cut), full.slice(cut), root.length + 1)]).toEqual([name, isMatch(name)]);
    }
  });
});
