// Bash's pattern matching for one path segment, with its default options (extglob, dotglob,
// nocaseglob off): `*`, `?`, bracket expressions with `!` or `^` negation, ranges, POSIX classes
// (`[[:alpha:]]`), `[=c=]` and `[.c.]`, backslash escapes, an unclosed `[` as a literal. A leading
// `.` of a name is matched only by a literal `.` (or `\.`) at the start of the pattern, never by
// a wildcard or a bracket expression. The one matcher every glob judgement uses (expansion,
// protected names, critical removals), so that `rm -rf .[!.]*` is read as bash reads it.

export interface GlobMatchOptions {
  /** dotglob: wildcards match a leading `.` too (judging what a pattern *may* name). */
  dot?: boolean;
  /** nocaseglob, or a case-insensitive file system. */
  nocase?: boolean;
}

const CLASSES: Record<string, string> = {
  alpha: "\\p{L}",
  digit: "0-9",
  alnum: "\\p{L}\\p{Nd}",
  upper: "\\p{Lu}",
  lower: "\\p{Ll}",
  space: "\\s",
  blank: " \\t",
  punct: "!-\\/:-@\\[-`{-~",
  print: "\\P{C}",
  graph: "!-~\\p{L}\\p{N}\\p{P}\\p{S}",
  cntrl: "\\p{Cc}",
  xdigit: "0-9A-Fa-f",
  word: "\\p{L}\\p{Nd}_",
};

/** A character as itself inside a RegExp class (`-` included) or outside one. */
const escapeChar = (c: string): string => c.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
const escapeOutside = (c: string): string => c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/** The index of the `]` closing a bracket expression opened at `open`, or -1 (then `[` is literal). */
function bracketEnd(s: string, open: number): number {
  let i = open + 1;
  if (s[i] === "!" || s[i] === "^") i++;
  if (s[i] === "]") i++;
  for (; i < s.length; i++) {
    if (s[i] === "\\") i++;
    else if (s[i] === "[" && (s[i + 1] === ":" || s[i + 1] === "=" || s[i + 1] === ".")) {
      const kind = s[i + 1] as string;
      const close = s.indexOf(`${kind}]`, i + 2);
      if (close === -1) continue;
      i = close + 1;
    } else if (s[i] === "]") return i;
  }
  return -1;
}

/** The body of a bracket expression (between `[` and `]`, negation removed) as a RegExp class body. */
function bracketBody(body: string): string | undefined {
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i] as string;
    if (c === "[" && (body[i + 1] === ":" || body[i + 1] === "=" || body[i + 1] === ".")) {
      const kind = body[i + 1] as string;
      const close = body.indexOf(`${kind}]`, i + 2);
      if (close !== -1) {
        const name = body.slice(i + 2, close);
        if (kind === ":") {
          const cls = CLASSES[name];
          if (cls === undefined) return undefined; // an invalid class: bash matches nothing with it
          out += cls;
        } else out += [...name].map(escapeChar).join(""); // `[=a=]`, `[.a.]`: the character itself
        i = close + 1;
        continue;
      }
    }
    let ch = c;
    if (c === "\\" && i + 1 < body.length) ch = body[++i] as string;
    // A range `a-z` (a `-` first or last is literal).
    if (body[i + 1] === "-" && i + 2 < body.length) {
      let hi = body[i + 2] as string;
      let skip = 2;
      if (hi === "\\" && i + 3 < body.length) {
        hi = body[i + 3] as string;
        skip = 3;
      }
      if (hi !== "[") {
        if ((ch.codePointAt(0) ?? 0) <= (hi.codePointAt(0) ?? 0)) out += `${escapeChar(ch)}-${escapeChar(hi)}`;
        i += skip;
        continue;
      }
    }
    out += escapeChar(ch);
  }
  return out;
}

/** One segment as a RegExp source (without anchors), or undefined when bash would match nothing. */
function segmentSource(segment: string): string | undefined {
  let out = "";
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i] as string;
    if (c === "\\") {
      const next = segment[++i];
      out += next === undefined ? "\\\\" : escapeOutside(next);
    } else if (c === "*") out += "[^/]*";
    else if (c === "?") out += "[^/]";
    else if (c === "[") {
      const close = bracketEnd(segment, i);
      if (close < 0) {
        out += "\\[";
        continue;
      }
      let body = segment.slice(i + 1, close);
      const negate = body.startsWith("!") || body.startsWith("^");
      if (negate) body = body.slice(1);
      const cls = bracketBody(body);
      if (cls === undefined) return undefined;
      out += negate ? `[^/${cls}]` : cls === "" ? "(?!)" : `[${cls}]`;
      i = close;
    } else out += escapeOutside(c);
  }
  return out;
}

/** Whether bash would treat the segment as a pattern: an unescaped `*`, `?` or `[`. */
export function hasGlobChar(segment: string): boolean {
  return /(^|[^\\])(\\\\)*[*?[]/.test(segment);
}

const cache = new Map<string, (name: string) => boolean>();

/** A matcher for one path segment, as bash matches it against a file name. */
export function globSegmentMatcher(segment: string, options: GlobMatchOptions = {}): (name: string) => boolean {
  const key = `${options.dot ? 1 : 0}${options.nocase ? 1 : 0}${segment}`;
  let m = cache.get(key);
  if (m) return m;
  const source = segmentSource(segment);
  if (source === undefined) m = () => false;
  else {
    const re = new RegExp(`^${source}$`, `su${options.nocase ? "i" : ""}`);
    // dotglob off: a name starting with `.` needs a literal `.` first in the pattern.
    const literalDot = segment.startsWith(".") || segment.startsWith("\\.");
    m = options.dot || literalDot ? (name) => re.test(name) : (name) => !name.startsWith(".") && re.test(name);
  }
  if (cache.size > 4_096) cache.clear();
  cache.set(key, m);
  return m;
}
