import picomatch from "picomatch";

/**
 * Gitignore-style pattern lists, as ripgrep reads them from `.gitignore`, `.ignore`, `.rgignore`
 * and `.git/info/exclude`, and as it reads `--glob` overrides. Pure: text in, matchers out.
 */

export type IgnoreDecision = "ignore" | "whitelist" | undefined;

export interface IgnoreRule {
  /** `!pattern`: re-includes what an earlier rule excluded. */
  negated: boolean;
  /** `pattern/`: applies to directories only. */
  dirOnly: boolean;
  /** Tests a path relative to the folder the list belongs to ("/"-separated). */
  matches(relativePath: string): boolean;
}

/** One ignore file's rules and the folder its patterns are relative to. */
export interface IgnoreList {
  base: string;
  rules: readonly IgnoreRule[];
}

/** One line of a gitignore file, or undefined for blanks and comments. */
export function parseIgnoreLine(raw: string): IgnoreRule | undefined {
  let line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
  line = trimUnescapedTrailingSpaces(line);
  if (line === "" || line.startsWith("#")) return undefined;
  let negated = false;
  if (line.startsWith("!")) {
    negated = true;
    line = line.slice(1);
  } else if (line.startsWith("\\!") || line.startsWith("\\#")) {
    line = line.slice(1);
  }
  let dirOnly = false;
  if (line.endsWith("/") && !line.endsWith("\\/")) {
    dirOnly = true;
    line = line.replace(/\/+$/, "");
  }
  if (line === "") return undefined;
  // A slash anywhere but at the end anchors the pattern to the list's folder; otherwise it
  // matches at any depth.
  const anchored = line.includes("/");
  if (line.startsWith("/")) line = line.slice(1);
  const glob = anchored || line.startsWith("**/") ? line : `**/${line}`;
  const isMatch = picomatch(glob, { dot: true, nonegate: true });
  // `dir/**` also covers `dir` itself in our use (its contents are what it excludes).
  return { negated, dirOnly, matches: (p) => isMatch(p) };
}

function trimUnescapedTrailingSpaces(line: string): string {
  let end = line.length;
  while (end > 0 && (line[end - 1] === " " || line[end - 1] === "\t")) {
    if (end >= 2 && line[end - 2] === "\\") break;
    end--;
  }
  return line.slice(0, end);
}

export function parseIgnoreFile(text: string): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  for (const line of text.split("\n")) {
    const rule = parseIgnoreLine(line);
    if (rule) rules.push(rule);
  }
  return rules;
}

/** The last rule of the list that matches decides; negated rules whitelist. */
export function matchIgnoreList(list: IgnoreList, absolutePath: string, isDir: boolean): IgnoreDecision {
  const rel = relativeTo(list.base, absolutePath);
  if (rel === undefined) return undefined;
  for (let i = list.rules.length - 1; i >= 0; i--) {
    const rule = list.rules[i]!;
    if (rule.dirOnly && !isDir) continue;
    if (rule.matches(rel)) return rule.negated ? "whitelist" : "ignore";
  }
  return undefined;
}

function relativeTo(base: string, absolutePath: string): string | undefined {
  if (absolutePath === base) return undefined;
  const prefix = base.endsWith("/") ? base : `${base}/`;
  return absolutePath.startsWith(prefix) ? absolutePath.slice(prefix.length) : undefined;
}

/**
 * `--glob` overrides, ripgrep style: `pat` whitelists, `!pat` excludes, the last match wins, and
 * when any whitelisting glob is given a file that matches none of them is excluded. Paths are
 * relative to the search root.
 */
export interface OverrideMatcher {
  decide(relativePath: string, isDir: boolean): IgnoreDecision;
  readonly empty: boolean;
}

export function compileOverrides(globs: readonly string[]): OverrideMatcher {
  const rules: IgnoreRule[] = [];
  let whitelists = 0;
  for (const glob of globs) {
    const rule = parseIgnoreLine(glob);
    if (!rule) continue;
    // In an override list the sense is inverted: a plain glob selects, `!glob` excludes.
    const selects = !rule.negated;
    if (selects) whitelists++;
    rules.push({ negated: selects, dirOnly: rule.dirOnly, matches: rule.matches });
  }
  return {
    empty: rules.length === 0,
    decide(relativePath, isDir) {
      for (let i = rules.length - 1; i >= 0; i--) {
        const rule = rules[i]!;
        if (rule.dirOnly && !isDir) continue;
        if (rule.matches(relativePath)) return rule.negated ? "whitelist" : "ignore";
      }
      return whitelists > 0 && !isDir ? "ignore" : undefined;
    },
  };
}
