// Pathname expansion as bash does it with its default options (dotglob, nullglob, failglob,
// globstar, extglob and nocaseglob off), at decision time: `ls *.ts` reads what `*.ts` matches
// now. No match leaves the word as written (a literal name). Bounded: past the bound the
// expansion is not known. Names are matched by glob-match.ts, bash's own rules.
import { lstatSync, readdirSync, type Dirent } from "node:fs";
import { globSegmentMatcher, hasGlobChar } from "./glob-match.js";

/** Directories read and names returned for one word. */
export const GLOB_MAX_DIRECTORIES = 256;
export const GLOB_MAX_MATCHES = 2_000;

export type GlobExpansion = { kind: "matches"; paths: string[] } | { kind: "unknown"; why: string };

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
    const matches = globSegmentMatcher(segment);
    // dotglob off: a leading `.` must be matched explicitly. `.` and `..` only by a pattern
    // starting with `.`, and not at all by bash 5.2 (globskipdots): kept, as older bash matches them.
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
        if (!matches(name)) continue;
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
