// Pathname expansion as bash does it with its default options (dotglob, nullglob, failglob,
// globstar, extglob and nocaseglob off), at decision time: `ls *.ts` reads what `*.ts` matches
// now. No match leaves the word as written (a literal name). Bounded: past the bound the
// expansion is not known. Patterns this module does not model (POSIX classes, extglob) are not
// expanded either.
import { lstatSync, readdirSync, type Dirent } from "node:fs";

/** Directories read and names returned for one word. */
export const GLOB_MAX_DIRECTORIES = 256;
export const GLOB_MAX_MATCHES = 2_000;

export type GlobExpansion = { kind: "matches"; paths: string[] } | { kind: "unknown"; why: string };

/**
 * One segment of a pattern as a RegExp: `*`, `?`, `[…]` (with `!`/`^` negation), `\x` literal.
 * Undefined for what is not modelled (`[[:alpha:]]`, `[=a=]`, `[.a.]`).
 */
function segmentRegExp(segment: string): RegExp | undefined {
  let out = "";
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i] as string;
    if (c === "\\") {
      const next = segment[++i];
      if (next === undefined) return undefined;
      out += escape(next);
    } else if (c === "*") out += "[^/]*";
    else if (c === "?") out += "[^/]";
    else if (c === "[") {
      const close = bracketEnd(segment, i);
      if (close < 0) {
        out += "\\[";
        continue;
      }
      let body = segment.slice(i + 1, close);
      if (/\[[:=.]/.test(body)) return undefined;
      let negate = false;
      if (body.startsWith("!") || body.startsWith("^")) {
        negate = true;
        body = body.slice(1);
      }
      const chars = body.replace(/\\(.)/g, "$1").replace(/[\\\]^]/g, "\\$&");
      out += `[${negate ? "^" : ""}${chars}]`;
      i = close;
    } else out += escape(c);
  }
  try {
    return new RegExp(`^${out}$`, "su");
  } catch {
    return undefined;
  }
}

/** The index of the `]` closing a bracket expression opened at `open` (a leading `]` is literal), or -1. */
function bracketEnd(s: string, open: number): number {
  let i = open + 1;
  if (s[i] === "!" || s[i] === "^") i++;
  if (s[i] === "]") i++;
  for (; i < s.length; i++) {
    if (s[i] === "\\") i++;
    else if (s[i] === "]") return i;
  }
  return -1;
}

function escape(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

const hasGlobChar = (segment: string): boolean => /(^|[^\\])[*?[]/.test(segment);

/**
 * Expands `word` (a glob after quote removal, no `$`, backquote or brace) relative to `cwd`.
 * Paths come back as bash prints them: relative when the word is.
 */
export function expandGlob(word: string, cwd: string): GlobExpansion {
  const absolute = word.startsWith("/");
  const segments = word.split("/");
  // `dir/` matches directories only: the empty last segment.
  let prefixes: string[] = [absolute ? "/" : ""];
  let directoriesRead = 0;
  for (let k = absolute ? 1 : 0; k < segments.length; k++) {
    const segment = segments[k] as string;
    const last = k === segments.length - 1;
    if (segment === "" && !last) continue;
    const next: string[] = [];
    if (!hasGlobChar(segment)) {
      const literal = segment.replace(/\\(.)/g, "$1");
      for (const p of prefixes) next.push(last && segment === "" ? p : join(p, literal));
      prefixes = next;
      continue;
    }
    const re = segmentRegExp(segment);
    if (!re) return { kind: "unknown", why: `the pattern ${segment} is not modelled` };
    // dotglob off: a leading `.` must be matched explicitly; `.` and `..` only by a pattern starting with `.`.
    const dotExplicit = segment.startsWith(".") || segment.startsWith("\\.");
    for (const p of prefixes) {
      if (++directoriesRead > GLOB_MAX_DIRECTORIES) return { kind: "unknown", why: `it spans more than ${GLOB_MAX_DIRECTORIES} directories` };
      let entries: Dirent[];
      try {
        entries = readdirSync(resolveIn(cwd, p || "."), { withFileTypes: true });
      } catch {
        continue;
      }
      const names = entries.map((e) => e.name);
      if (dotExplicit) names.push(".", "..");
      for (const name of names) {
        if (name.startsWith(".") && !dotExplicit) continue;
        if (!re.test(name)) continue;
        next.push(join(p, name));
        if (next.length > GLOB_MAX_MATCHES) return { kind: "unknown", why: `it matches more than ${GLOB_MAX_MATCHES} paths` };
      }
    }
    prefixes = next.sort();
  }
  // Literal segments after a glob must exist too (`src/*/z.ts`).
  prefixes = prefixes.filter((p) => existsIn(cwd, p));
  // A trailing `/` keeps only directories: bash appends the slash to each.
  if (word.endsWith("/")) prefixes = prefixes.filter((p) => isDirectoryIn(cwd, p)).map((p) => `${p.replace(/\/$/, "")}/`);
  if (prefixes.length === 0) return { kind: "matches", paths: [word.replace(/\\(.)/g, "$1")] };
  return { kind: "matches", paths: prefixes };
}

function join(prefix: string, name: string): string {
  if (prefix === "") return name;
  return prefix.endsWith("/") ? `${prefix}${name}` : `${prefix}/${name}`;
}

function resolveIn(cwd: string, p: string): string {
  return p.startsWith("/") ? p : `${cwd.replace(/\/+$/, "")}/${p}`;
}

function isDirectoryIn(cwd: string, p: string): boolean {
  try {
    return readdirSync(resolveIn(cwd, p)) !== undefined;
  } catch {
    return false;
  }
}

function existsIn(cwd: string, p: string): boolean {
  try {
    return lstatSync(resolveIn(cwd, p), { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false; // ENOTDIR: a file in the middle of the path
  }
}
