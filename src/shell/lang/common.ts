// What the sed, awk and jq tokenizers share.

/**
 * In a multibyte locale such as Big5, GBK or Shift-JIS (chosen with `LC_ALL=…`, which the shell
 * analysis lets through as presentation-only), the byte after a non-ASCII lead byte may be read
 * as the second half of one character. The bytes that can be swallowed that way include `\`,
 * `[`, `]`, `|`, `{`, `}`, `@`: a backslash that escapes nothing any more, or a delimiter that
 * vanishes, would make the interpreter read the program differently from the tokenizer.
 * So such a pair is refused; UTF-8 text before spaces, letters, digits or quotes is unaffected.
 */
export function multibyteHazard(tool: string, program: string): string | undefined {
  const m = /[^\x00-\x7f][@[\\\]^_`{|}~]/u.exec(program);
  return m ? `${tool} program has a non-ASCII character right before ${JSON.stringify(m[0].slice(-1))} (read differently in multibyte locales)` : undefined;
}
