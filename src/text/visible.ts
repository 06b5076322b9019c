// Text a project ships (a hook command, a file name, a server's arguments), shown to a person:
// every character that a terminal would act on or that changes how the text reads is written out
// as an escape instead — C0 and C1 controls, DEL, bidirectional overrides and isolates, zero-width
// and other invisible formatting characters. A screen built from it shows what is there.

/** Code point ranges that are not shown as themselves: controls, bidi formatting, zero-width and invisible marks, tags. */
const HIDDEN: ReadonlyArray<readonly [number, number]> = [
  [0x00, 0x1f], [0x7f, 0x9f], [0xad, 0xad], [0x61c, 0x61c], [0x115f, 0x1160], [0x17b4, 0x17b5], [0x180e, 0x180e],
  [0x200b, 0x200f], [0x202a, 0x202e], [0x2060, 0x206f], [0x3164, 0x3164], [0xfe00, 0xfe0f], [0xfeff, 0xfeff],
  [0xffa0, 0xffa0], [0xfff9, 0xfffb], [0xe0000, 0xe007f],
];

/** A quick test for the common case: text with none of them is returned as it is. */
const ANY_HIDDEN = /[^\u0020-\u007e\u00a0-\u00ac\u00ae-\u060b]/u;

function hidden(code: number): boolean {
  return HIDDEN.some(([from, to]) => code >= from && code <= to);
}

const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

function escape(ch: string): string {
  const named = NAMED[ch];
  if (named !== undefined) return named;
  const code = ch.codePointAt(0)!;
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, "0")}`;
  return code <= 0xffff ? `\\u${code.toString(16).padStart(4, "0")}` : `\\u{${code.toString(16)}}`;
}

/** `text` with every hidden character written out (`\x1b`, `\u202e`, `\n`); the rest unchanged. */
export function visible(text: string): string {
  if (!ANY_HIDDEN.test(text)) return text;
  let out = "";
  for (const ch of text) out += hidden(ch.codePointAt(0)!) ? escape(ch) : ch;
  return out;
}
