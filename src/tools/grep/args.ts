import { VCS_DIRECTORIES } from "../search/paths.js";
import { MAX_COLUMNS, type GrepQuery } from "./types.js";

/**
 * Splits the `glob` input into ripgrep globs: on whitespace outside braces, then on commas
 * outside braces, so `"*.ts *.tsx"`, `"*.ts,*.tsx"` and `"*.{ts, tsx}"` all do what they say.
 */
export function splitGlobs(glob: string | undefined): string[] {
  if (glob === undefined) return [];
  const out: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of glob) {
    if (ch === "{") depth++;
    else if (ch === "}" && depth > 0) depth--;
    if (depth === 0 && (ch === "," || /\s/.test(ch))) {
      if (current !== "") out.push(current);
      current = "";
      continue;
    }
    if (depth > 0 && /\s/.test(ch)) continue;
    current += ch;
  }
  if (current !== "") out.push(current);
  return out;
}

/**
 * The ripgrep command line for a query. Always `--null` and `--with-filename` so output can
 * be parsed exactly (paths may contain `:`), `-n` in content mode (the tool drops the numbers
 * when `-n` is false), and `--sort path` in content mode so that pages are stable across calls.
 */
export function buildRipgrepArgs(query: GrepQuery): string[] {
  const args = ["--no-config", "--hidden", "--no-follow", "--max-columns", String(MAX_COLUMNS), "--null", "--with-filename", "--no-heading", "--color", "never"];
  if (query.mode === "files_with_matches") args.push("--files-with-matches");
  else if (query.mode === "count") args.push("--count");
  else {
    args.push("--line-number", "--sort", "path");
    if (query.before > 0) args.push("--before-context", String(query.before));
    if (query.after > 0) args.push("--after-context", String(query.after));
    if (query.onlyMatching) args.push("--only-matching");
  }
  if (query.caseInsensitive) args.push("--ignore-case");
  if (query.multiline) args.push("--multiline", "--multiline-dotall");
  if (query.type !== undefined) args.push("--type", query.type);
  for (const glob of query.globs) args.push("--glob", glob);
  // After the user's globs: the last matching glob wins, so these always apply.
  for (const dir of VCS_DIRECTORIES) args.push("--glob", `!${dir}`);
  // ripgrep applies every --iglob after every --glob: a denied path stays out whatever the user's globs say.
  for (const glob of query.excludeGlobs ?? []) args.push("--iglob", glob);
  if (query.pattern.startsWith("-")) args.push("-e", query.pattern);
  else args.push(query.pattern);
  args.push(query.root);
  return args;
}
