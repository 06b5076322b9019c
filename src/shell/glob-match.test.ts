// The glob matcher against bash itself: generated patterns over a real directory, each expanded
// by `compgen -G` (bash's default options) and by glob-expand.ts, which matches with glob-match.ts.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expandGlob } from "./glob-expand.js";
import { globSegmentMatcher, hasGlobChar } from "./glob-match.js";

const NAMES = [".git", ".claude", ".a", "..x", "a", "b", "ab", "-r", "--from-file=.env", "@x", "A", "Z9", "x.ts", "x]y", "a-b", "!n", "^c", "_u", "sp ace", "é", "[a]", "*s", "q?"];
const PIECES = ["*", "?", ".", "a", "b", "-", "[!.]", "[^.]", "[!a]", "[a-c]", "[[:alpha:]]", "[[:punct:]]", "[[:upper:]]", "[[:digit:]]", "[]a]", "[!]a]", "[a-]", "[", "]", "\\.", "\\*", "[.]", "[=a=]", "x", "t", "s", "[[:space:]]", "@", "!", "^"];

/** A deterministic pseudo-random sequence (the test must not vary from run to run). */
function* lcg(seed: number): Generator<number> {
  let x = seed;
  for (;;) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    yield x >>> 8;
  }
}

function patterns(count: number): string[] {
  const out = new Set<string>([".[!.]*", ".[^.]*", "[!.]*", ".*", "*", "[.]*", "\\.*", "?*", "[[:punct:]]*", "-*", "[-@]*", "*[]]*", "[!a-z]*"]);
  const rand = lcg(19);
  while (out.size < count) {
    const n = 1 + ((rand.next().value as number) % 4);
    let p = "";
    for (let k = 0; k < n; k++) p += PIECES[(rand.next().value as number) % PIECES.length];
    // A word without a wildcard is no pattern (compgen -G prints it when it exists).
    if (hasGlobChar(p)) out.add(p);
  }
  return [...out];
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "armature-glob-"));
  mkdirSync(join(dir, "d"));
  for (const n of NAMES) writeFileSync(join(dir, "d", n), "");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("glob matching follows bash", () => {
  it("matches what bash's compgen -G matches for generated patterns (dotglob off)", () => {
    const list = patterns(400);
    // One bash for every pattern: each expansion on its own line, NUL-separated names.
    const script = 'cd "$1"; shift; for p in "$@"; do compgen -G "$p" | LC_ALL=C sort | tr "\\n" "\\0"; printf "\\n"; done';
    const out = execFileSync("bash", ["-c", script, "bash", join(dir, "d"), ...list], { encoding: "utf8", env: { ...process.env, LC_ALL: "C.UTF-8" } });
    const lines = out.split("\n");
    const mismatches: string[] = [];
    list.forEach((p, i) => {
      const fromBash = (lines[i] ?? "").split("\0").filter((n) => n !== "");
      const e = expandGlob(p, join(dir, "d"));
      const ours = e.kind === "matches" ? e.paths.filter((n) => n !== "." && n !== ".." && NAMES.includes(n)) : ["<unknown>"];
      // With no match bash prints nothing and glob-expand keeps the word: compare matches only.
      const literalKept = ours.length === 1 && fromBash.length === 0 && !globSegmentMatcher(p)(ours[0]!);
      const a = [...fromBash].sort().join(" | ");
      const b = literalKept ? "" : [...ours].sort().join(" | ");
      if (a !== b) mismatches.push(`${p}: bash [${a}] ours [${b}]`);
    });
    expect(mismatches).toEqual([]);
  });

  it.each([
    [".[!.]*", ".git", true],
    [".[!.]*", "..x", false],
    [".[^.]*", ".claude", true],
    ["[!.]*", ".git", false],
    ["*", ".git", false],
    ["[.]git", ".git", false],
    ["\\.g*", ".git", true],
    [".[[:alpha:]]it", ".git", true],
  ])("%s on %s → %s", (pattern, name, matched) => {
    expect(globSegmentMatcher(pattern)(name)).toBe(matched);
  });
});
