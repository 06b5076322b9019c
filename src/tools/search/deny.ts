import { lstatSync } from "node:fs";
import { basename, dirname } from "node:path";
import picomatch from "picomatch";
import { deniedPathRule } from "../../permissions/match.js";
import { cachedPathPattern } from "../../permissions/path-rules.js";
import { defaultHome, memoCanonicalize, realCanonicalize, type Canonicalize } from "../../permissions/paths.js";
import type { PermissionRule, ToolUseContext } from "../../tool/types.js";

/**
 * Read deny rules for tools that walk directories. The permission engine checks only the
 * search root of a Glob or Grep; a file below an allowed root may still be denied
 * (`Read(./.env)`, `Read(~/.ssh/**)`), and such files must never be read, counted or listed.
 *
 * Paths are judged by the engine's own matcher (`deniedPathRule`): case-insensitive, on the
 * written and the canonical name, so a symlink whose target is denied is denied too.
 */
export interface ReadDenyFilter {
  /**
   * Whether a path met while walking is denied. `kind` is what the walk already knows about it
   * ("file" or "dir" mean: not a symlink); without it the path is lstat'ed.
   */
  denies(path: string, kind?: "file" | "dir" | "symlink"): boolean;
  /**
   * ripgrep `--iglob` values (`!…`) that exclude every path below `root` the rules deny, for a
   * ripgrep run whose working directory is `root`; undefined when a rule uses glob syntax that
   * ripgrep reads differently (then the caller must not rely on ripgrep's exclusion).
   */
  ripgrepExcludes(root: string): string[] | undefined;
}

/** The filter for this call, or undefined when no Read deny rule names a path. */
export function readDenyFilter(context: Pick<ToolUseContext, "permissionContext" | "workspace">): ReadDenyFilter | undefined {
  const rules = context.permissionContext.rules.filter((r) => r.behavior === "deny" && r.toolName === "Read" && r.ruleContent !== undefined);
  if (rules.length === 0) return undefined;
  return createReadDenyFilter(rules, context.workspace.projectDir, defaultHome());
}

/** `projectDir` anchors the relative rules (`Read(./x)`, `Read(x)`), as the engine does: a `cd` does not move them. */
export function createReadDenyFilter(rules: readonly PermissionRule[], projectDir: string, home: string): ReadDenyFilter {
  // Directories are canonicalised once each; a plain file's canonical name is its folder's plus its name.
  const canonicalDir = memoCanonicalize(realCanonicalize);
  const inFolder: Canonicalize = (p) => {
    const dir = dirname(p);
    const canonical = canonicalDir(dir);
    return canonical === "/" ? `/${basename(p)}` : `${canonical}/${basename(p)}`;
  };
  const decided = new Map<string, boolean>();
  // Per folder, the rules that can match something inside it: most rules are out of reach of most
  // folders (`//etc/**` below the project), so most files are checked against few rules or none.
  const reachable = new Map<string, readonly PermissionRule[]>();
  const rulesInside = (dir: string): readonly PermissionRule[] => {
    let out = reachable.get(dir);
    if (!out) {
      const canonical = canonicalDir(dir);
      out = rules.filter((rule) => {
        const { base, glob } = cachedPathPattern(rule, projectDir, home);
        const segments = glob.split("/");
        if (!segments.every(ripgrepReadsAlike) || glob.startsWith("!")) return true;
        return excludesBelow(base, segments, dir).length > 0 || (canonical !== dir && excludesBelow(base, segments, canonical).length > 0);
      });
      if (reachable.size > 10_000) reachable.clear();
      reachable.set(dir, out);
    }
    return out;
  };
  return {
    denies(path, kind) {
      const known = decided.get(path);
      if (known !== undefined) return known;
      const actual = kind ?? kindOf(path);
      // A symlink's canonical name may be anywhere: every rule applies to it.
      const candidates = actual === "symlink" ? rules : rulesInside(dirname(path));
      if (candidates.length === 0) return false;
      const canonicalize = actual === "symlink" ? realCanonicalize : inFolder;
      const hit = deniedPathRule(candidates, path, "read", { cwd: projectDir, projectDir, home, canonicalize }) !== undefined;
      if (decided.size > 10_000) decided.clear();
      decided.set(path, hit);
      return hit;
    },
    ripgrepExcludes(root) {
      const views = [...new Set([root, realCanonicalize(root)])];
      const out = new Set<string>();
      for (const rule of rules) {
        const { base, glob } = cachedPathPattern(rule, projectDir, home);
        const segments = glob.split("/");
        if (!segments.every(ripgrepReadsAlike) || glob.startsWith("!")) return undefined;
        for (const view of views) {
          for (const g of excludesBelow(base, segments, view)) {
            out.add(`!${g}`);
            // picomatch's `x/**` matches `x` itself: the folder is denied, so ripgrep need not even list it.
            if (g.endsWith("/**") && g.length > 3) out.add(`!${g.slice(0, -3)}`);
          }
        }
      }
      return [...out];
    },
  };
}

function kindOf(path: string): "file" | "dir" | "symlink" {
  let info;
  try {
    info = lstatSync(path, { throwIfNoEntry: false });
  } catch {
    info = undefined;
  }
  // Vanished or unreadable: judged the slow, thorough way, as a symlink is.
  if (!info) return "symlink";
  return info.isSymbolicLink() ? "symlink" : info.isDirectory() ? "dir" : "file";
}

/**
 * A glob segment that ripgrep's globset matches as picomatch does: `*`, `?`, `**` alone,
 * classes, one level of braces without `/`. Extglobs, POSIX classes and `**` inside a
 * segment read differently, so such a rule is not handed to ripgrep.
 */
function ripgrepReadsAlike(segment: string): boolean {
  if (segment === "") return false;
  if (/[()]|\[\[:/.test(segment)) return false;
  if (segment.includes("**") && segment !== "**") return false;
  let depth = 0;
  for (let i = 0; i < segment.length; i++) {
    const ch = segment[i];
    if (ch === "\\") i++;
    else if (ch === "{") {
      if (++depth > 1) return false;
    } else if (ch === "}") {
      if (--depth < 0) return false;
    }
  }
  return depth === 0;
}

function insideNoCase(path: string, dir: string): boolean {
  if (dir === "/") return true;
  const p = path.toLowerCase();
  const d = dir.toLowerCase();
  return p === d || p.startsWith(`${d}/`);
}

function escapeLiteral(segment: string): string {
  return segment.replace(/[\\*?[\]{}!]/g, "\\$&");
}

/**
 * The globs, anchored at `view` (ripgrep's working directory), that cover every path below it
 * the pattern `base` + `segments` matches. When the base lies above the view, the part of the
 * pattern that the view's own path consumes is matched away segment by segment (`**` may
 * consume any number), leaving the rest: `//home/*∕secret/**` seen from `/home/u` leaves
 * `secret/**`.
 */
function excludesBelow(base: string, segments: readonly string[], view: string): string[] {
  if (insideNoCase(base, view) && base.length > view.length) {
    const prefix = base.slice(view.length + (view === "/" ? 0 : 1)).split("/").map(escapeLiteral);
    return [`/${[...prefix, ...segments].join("/")}`];
  }
  if (!insideNoCase(view, base)) return [];
  const consumed = view.length === base.length ? [] : view.slice(base === "/" ? 1 : base.length + 1).split("/");
  let states = closure(new Set([0]), segments);
  for (const name of consumed) {
    const next = new Set<number>();
    for (const i of states) {
      if (i >= segments.length) continue;
      const seg = segments[i]!;
      if (seg === "**") next.add(i);
      else if (segmentMatcher(seg)(name)) next.add(i + 1);
    }
    states = closure(next, segments);
    if (states.size === 0) return [];
  }
  return [...states].map((i) => (i >= segments.length ? "/**" : `/${segments.slice(i).join("/")}`));
}

function closure(states: Set<number>, segments: readonly string[]): Set<number> {
  for (const i of states) if (segments[i] === "**") states.add(i + 1);
  return states;
}

const segmentMatchers = new Map<string, (name: string) => boolean>();
function segmentMatcher(segment: string): (name: string) => boolean {
  let m = segmentMatchers.get(segment);
  if (!m) {
    m = picomatch(segment, { dot: true, nocase: true });
    if (segmentMatchers.size > 1000) segmentMatchers.clear();
    segmentMatchers.set(segment, m);
  }
  return m;
}
