import picomatch from "picomatch";
import { posix } from "node:path";
import type { PermissionRule } from "../tool/types.js";
import { toPosix } from "./paths.js";

/** Where a `Read(…)` / `Edit(…)` pattern is anchored, and the gitignore-style glob below it. */
export interface PathPattern {
  base: string;
  glob: string;
  /** Compiled on first use. */
  matchers?: { s?: Matcher; i?: Matcher };
}

const compiledPatterns = new WeakMap<PermissionRule, { projectDir: string; home: string; pattern: PathPattern }>();

/** `pathPattern`, remembered per rule for the same project directory and home. */
export function cachedPathPattern(rule: PermissionRule, projectDir: string, home: string): PathPattern {
  const hit = compiledPatterns.get(rule);
  if (hit && hit.projectDir === projectDir && hit.home === home) return hit.pattern;
  const pattern = pathPattern(rule, projectDir, home);
  compiledPatterns.set(rule, { projectDir, home, pattern });
  return pattern;
}

/**
 * The four anchors: `//abs` (filesystem root), `~/x` (home), `/x` (the rule's project root),
 * `x` or `./x` (the session's working directory, `projectDir`). COMPAT's "relative to cwd" is the
 * directory the session started in, not the shell's current one: a `cd` the model runs moves
 * neither the rules nor the working directories, so `cd src && cat ../secret/key` still meets
 * `Read(./secret/**)`. (Relative paths a call names are still read against the current cwd.)
 * A pattern without a `/` matches at any depth (`.env` ≡ `**∕.env`); for a
 * deny or ask, a single directory name with `/**` does too (any `src` dir below the base).
 * A trailing `/` names a directory: everything below it matches.
 */
export function pathPattern(rule: PermissionRule, projectDir: string, home: string): PathPattern {
  let content = toPosix(rule.ruleContent ?? "**");
  let base: string;
  if (content.startsWith("//")) {
    base = "/";
    content = content.slice(2);
  } else if (content === "~" || content.startsWith("~/")) {
    base = home;
    content = content.slice(2);
  } else if (content.startsWith("/")) {
    base = rule.root ?? projectDir;
    content = content.slice(1);
  } else {
    base = projectDir;
    while (content.startsWith("./")) content = content.slice(2);
  }
  content = content.replace(/\/+$/, "");
  if (content === "") content = "**";
  const restrictive = rule.behavior !== "allow";
  const singleSegment = !content.includes("/");
  const dirAnyDepth = restrictive && /^[^/*?[\]{}]+\/\*\*$/.test(content);
  const written = toPosix(rule.ruleContent ?? "");
  const anchoredByUser = written.startsWith("/") || written.startsWith("~") || written.startsWith("./");
  const glob = !anchoredByUser && (singleSegment || dirAnyDepth) && content !== "**" ? `**/${content}` : content;
  return { base: posix.resolve(base), glob };
}

/**
 * The directory every path a pattern matches lies under (its base and the glob's literal leading
 * segments), or undefined for a literal path (no glob: it is one path, wherever it is).
 */
export function patternRoot(pattern: PathPattern): string | undefined {
  const segments = pattern.glob.split("/");
  const firstGlob = segments.findIndex((s) => /[*?[\]{}]/.test(s));
  if (firstGlob === -1) return undefined;
  return posix.join(pattern.base, ...segments.slice(0, firstGlob));
}

type Matcher = (test: string) => boolean;
const matchers = new Map<string, Matcher>();

function matcher(glob: string, nocase: boolean): Matcher {
  const key = `${nocase ? "i" : "s"}\0${glob}`;
  let m = matchers.get(key);
  if (!m) {
    m = picomatch(glob, { dot: true, nocase });
    if (matchers.size > 5000) matchers.clear();
    matchers.set(key, m);
  }
  return m;
}

/**
 * Whether an absolute, normalised path falls under the pattern: the path itself or one of its
 * directories below the base matches (a matched directory covers what is inside it).
 * `nocase`: deny and ask rules ignore case, so `/ETC/passwd` cannot slip past `//etc/**` on a
 * case-insensitive file system; allow rules keep case so they never grant more than written.
 */
export function pathMatches(pattern: PathPattern, path: string, nocase: boolean): boolean {
  let rel: string;
  const base = pattern.base;
  if (base === "/") rel = path.slice(1);
  else if (path.startsWith(base) && (path.length === base.length || path.charCodeAt(base.length) === 47)) {
    rel = path.slice(base.length + 1);
  } else if (nocase && path.length >= base.length && path.slice(0, base.length).toLowerCase() === base.toLowerCase() && (path.length === base.length || path.charCodeAt(base.length) === 47)) {
    rel = path.slice(base.length + 1);
  } else return false;
  const cache = (pattern.matchers ??= {});
  const m = nocase ? (cache.i ??= matcher(pattern.glob, true)) : (cache.s ??= matcher(pattern.glob, false));
  if (rel === "") return pattern.glob === "**";
  let candidate = rel;
  for (;;) {
    if (m(candidate)) return true;
    const slash = candidate.lastIndexOf("/");
    if (slash <= 0) return false;
    candidate = candidate.slice(0, slash);
  }
}

const GLOB_CHARS = /[*?[\]{}!+@()]/;

/**
 * Whether the pattern may match something below the absolute directory `dir` (not `dir`
 * itself): `dir` is an ancestor of the pattern's base, or lies below the base on a path the
 * glob can continue. `child` narrows to paths whose first segment below `dir` it accepts (a
 * one-segment shell glob such as `*.md`); a glob segment in the rule is taken to accept it.
 */
export function mayMatchBelow(pattern: PathPattern, dir: string, nocase: boolean, child?: (segment: string) => boolean): boolean {
  const base = pattern.base;
  const same = (a: string, b: string): boolean => (nocase ? a.toLowerCase() === b.toLowerCase() : a === b);
  const inside = (p: string, d: string): boolean => {
    if (d === "/") return true;
    return p.length >= d.length && same(p.slice(0, d.length), d) && (p.length === d.length || p.charCodeAt(d.length) === 47);
  };
  const globSegs = pattern.glob.split("/");
  const next = (segment: string | undefined): boolean => {
    if (segment === undefined || child === undefined || segment === "**" || GLOB_CHARS.test(segment)) return true;
    return child(segment);
  };
  if (inside(base, dir)) {
    const below = base.slice(dir === "/" ? 1 : dir.length + 1);
    const first = below === "" ? globSegs[0] : below.split("/")[0];
    return next(first);
  }
  if (!inside(dir, base)) return false;
  const rel = dir.slice(base === "/" ? 1 : base.length + 1).split("/");
  let i = 0;
  for (const r of rel) {
    const g = globSegs[i];
    if (g === undefined || g === "**") return true;
    if (GLOB_CHARS.test(g) ? !matcher(g, nocase)(r) : !same(g, r)) return false;
    i++;
  }
  return next(globSegs[i]);
}
