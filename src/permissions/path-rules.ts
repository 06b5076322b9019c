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

const compiledPatterns = new WeakMap<PermissionRule, { cwd: string; home: string; pattern: PathPattern }>();

/** `pathPattern`, remembered per rule for the same cwd and home. */
export function cachedPathPattern(rule: PermissionRule, cwd: string, home: string): PathPattern {
  const hit = compiledPatterns.get(rule);
  if (hit && hit.cwd === cwd && hit.home === home) return hit.pattern;
  const pattern = pathPattern(rule, cwd, home);
  compiledPatterns.set(rule, { cwd, home, pattern });
  return pattern;
}

/**
 * The four anchors: `//abs` (filesystem root), `~/x` (home), `/x` (the rule's project root),
 * `x` or `./x` (cwd). A pattern without a `/` matches at any depth (`.env` ≡ `**∕.env`); for a
 * deny or ask, a single directory name with `/**` does too (any `src` dir below the base).
 * A trailing `/` names a directory: everything below it matches.
 */
export function pathPattern(rule: PermissionRule, cwd: string, home: string): PathPattern {
  let content = toPosix(rule.ruleContent ?? "**");
  let base: string;
  if (content.startsWith("//")) {
    base = "/";
    content = content.slice(2);
  } else if (content === "~" || content.startsWith("~/")) {
    base = home;
    content = content.slice(2);
  } else if (content.startsWith("/")) {
    base = rule.root ?? cwd;
    content = content.slice(1);
  } else {
    base = cwd;
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
