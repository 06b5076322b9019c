import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { expandGlob, GLOB_MAX_MATCHES } from "./glob-expand.js";

// Checked against real bash (default options) in the same directory.
describe("expandGlob: bash's pathname expansion with default options", () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "armature-glob-")));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  for (const d of ["src/sub", "docs", ".hidden"]) mkdirSync(join(dir, d), { recursive: true });
  for (const f of ["a.ts", "b.ts", "c.js", ".env", ".env.example", "src/x.ts", "src/.y.ts", "src/sub/z.ts", "docs/r.md", "[x].txt", "a b.ts"]) writeFileSync(join(dir, f), "");

  const bash = (pattern: string): string[] => {
    const out = execFileSync("bash", ["-c", `printf '%s\\0' ${pattern}`], { cwd: dir, encoding: "utf8" });
    return out.split("\0").filter((s) => s !== "");
  };

  it.each(["*.ts", "*", "src/*.ts", "*/*.ts", "?.ts", "[ab].ts", "[!a].ts", "[^a].ts", ".*", ".e*", "src/.*", "*/", "nomatch*", "src/*/z.ts", "\\[x\\].txt", "[[]x].txt", "d*/r.md"])("%s matches what bash matches", (pattern) => {
    const got = expandGlob(pattern.replace(/\\(.)/g, "\\$1"), dir);
    expect(got.kind).toBe("matches");
    const expected = bash(pattern).sort();
    // `.` and `..` are always included for a dot pattern (older bash matches them too): a superset.
    const paths = got.kind === "matches" ? got.paths.filter((p) => !/(^|\/)\.\.?$/.test(p) || expected.includes(p)) : [];
    expect(paths.sort()).toEqual(expected);
  });

  it("models POSIX classes as bash does (glob-match.ts)", () => {
    expect(expandGlob("[[:alpha:]].ts", dir).kind).toBe("matches");
  });

  it("stops at its bound", () => {
    const big = join(dir, "big");
    mkdirSync(big);
    for (let i = 0; i <= GLOB_MAX_MATCHES; i++) writeFileSync(join(big, `f${i}`), "");
    expect(expandGlob("big/*", dir).kind).toBe("unknown");
  });
});
