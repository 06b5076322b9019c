/** A compiled matcher: decides whether a hook group applies to one match value (a tool name, a source…). */
export type HookMatcher = (value: string) => boolean;

const MATCH_ALL: HookMatcher = () => true;
/** Letters, digits, `_`, `-`, spaces, `|` and `,`: a list of exact names, never a regex. */
const EXACT_SET = /^[A-Za-z0-9_\-|, ]+$/;

export class MatcherSyntaxError extends Error {
  constructor(readonly pattern: string, readonly problem: string) {
    super(`invalid matcher ${JSON.stringify(pattern)}: ${problem}`);
    this.name = "MatcherSyntaxError";
  }
}

/**
 * Compiles a matcher string. Empty, `*` or missing match everything; a string of only
 * letters, digits, `_`, `-`, spaces, `|` and `,` is a list of exact names (`Edit|Write`,
 * `Edit, Write`); anything else is an unanchored JavaScript regex (`Edit.*` also matches
 * `NotebookEdit`; anchor with `^…$`). An invalid regex throws MatcherSyntaxError.
 */
export function compileMatcher(pattern: string | undefined): HookMatcher {
  if (pattern === undefined) return MATCH_ALL;
  const trimmed = pattern.trim();
  if (trimmed === "" || trimmed === "*") return MATCH_ALL;
  if (EXACT_SET.test(trimmed)) {
    const names = new Set(trimmed.split(/[|,]/).map((n) => n.trim()).filter((n) => n.length > 0));
    if (names.size === 0) return MATCH_ALL;
    if (names.size === 1) {
      const [only] = names;
      return (value) => value === only;
    }
    return (value) => names.has(value);
  }
  let regex: RegExp;
  try {
    regex = new RegExp(pattern);
  } catch (err) {
    throw new MatcherSyntaxError(pattern, `not a valid JavaScript regular expression (${(err as Error).message})`);
  }
  return (value) => regex.test(value);
}
