// Where an edit's old_string is in the file: exactly, or — only when that fails — after
// normalising what models most often get wrong: curly vs straight quotes and trailing whitespace.

const QUOTES: Record<string, string> = {
  "\u2018": "'",
  "\u2019": "'",
  "\u201A": "'",
  "\u201B": "'",
  "\u201C": '"',
  "\u201D": '"',
  "\u201E": '"',
  "\u201F": '"',
};
const CURLY = /[\u2018\u2019\u201A\u201B\u201C\u201D\u201E\u201F]/g;

export function normalizeQuotes(text: string): string {
  return text.replace(CURLY, (c) => QUOTES[c] ?? c);
}

function isTrailingSpace(code: number): boolean {
  // Space, tab, CR, VT, FF, NBSP: what editors and models add or drop at line ends.
  return code === 32 || code === 9 || code === 13 || code === 11 || code === 12 || code === 0xa0;
}

/** Where the kept part of each line ends: line end minus trailing whitespace. */
function keptEnd(text: string, lineStart: number, lineEnd: number): number {
  let keep = lineEnd;
  while (keep > lineStart && isTrailingSpace(text.charCodeAt(keep - 1))) keep--;
  return keep;
}

/** `text` with quotes straightened and whitespace at line ends removed. */
export function normalizeForMatch(text: string): string {
  const parts: string[] = [];
  let lineStart = 0;
  for (;;) {
    const nl = text.indexOf("\n", lineStart);
    const lineEnd = nl === -1 ? text.length : nl;
    parts.push(normalizeQuotes(text.slice(lineStart, keptEnd(text, lineStart, lineEnd))));
    if (nl === -1) break;
    lineStart = nl + 1;
  }
  return parts.join("\n");
}

/**
 * The index in `text` of the character at `index` in `normalizeForMatch(text)`. Walks the lines
 * again instead of keeping a map, so a large file costs no extra memory.
 */
export function originalIndex(text: string, index: number): number {
  let lineStart = 0;
  let normStart = 0;
  for (;;) {
    const nl = text.indexOf("\n", lineStart);
    const lineEnd = nl === -1 ? text.length : nl;
    const kept = keptEnd(text, lineStart, lineEnd) - lineStart;
    if (index < normStart + kept) return lineStart + (index - normStart);
    if (index === normStart + kept) return nl === -1 ? text.length : nl;
    if (nl === -1) return text.length;
    normStart += kept + 1;
    lineStart = nl + 1;
  }
}

export function countOccurrences(haystack: string, needle: string): number {
  if (needle === "") return 0;
  let count = 0;
  let i = haystack.indexOf(needle);
  while (i !== -1) {
    count++;
    i = haystack.indexOf(needle, i + needle.length);
  }
  return count;
}

export type FoundString =
  | { kind: "exact"; actual: string; count: number }
  | { kind: "tolerant"; actual: string; index: number }
  | { kind: "tolerant-ambiguous"; count: number }
  | { kind: "none" };

/**
 * The seeds' findActualString: the exact text when present; otherwise the one place that
 * matches after normalisation, returned as the file really has it.
 */
export function findActualString(content: string, search: string): FoundString {
  const exact = countOccurrences(content, search);
  if (exact > 0) return { kind: "exact", actual: search, count: exact };
  const needle = normalizeForMatch(search);
  if (needle.trim() === "") return { kind: "none" };
  const normalized = normalizeForMatch(content);
  const count = countOccurrences(normalized, needle);
  if (count === 0) return { kind: "none" };
  if (count > 1) return { kind: "tolerant-ambiguous", count };
  const at = normalized.indexOf(needle);
  const start = originalIndex(content, at);
  const end = originalIndex(content, at + needle.length - 1) + 1;
  return { kind: "tolerant", actual: content.slice(start, end), index: start };
}

/**
 * When the tolerant match found curly quotes where the model wrote straight ones, the new text
 * gets the file's style too: an opening quote after a space or an opening bracket, else a closing one.
 */
export function matchQuoteStyle(newString: string, oldString: string, actual: string): string {
  let out = newString;
  if (/[\u201C\u201D]/.test(actual) && !/[\u201C\u201D]/.test(oldString)) {
    out = out.replace(/"/g, (_q, i: number) => (opensQuote(out, i) ? "\u201C" : "\u201D"));
  }
  if (/[\u2018\u2019]/.test(actual) && !/[\u2018\u2019]/.test(oldString)) {
    out = out.replace(/'/g, (_q, i: number) => (opensQuote(out, i) ? "\u2018" : "\u2019"));
  }
  return out;
}

function opensQuote(text: string, index: number): boolean {
  if (index === 0) return true;
  return /[\s([{\u2014\u2013-]/.test(text[index - 1]!);
}
