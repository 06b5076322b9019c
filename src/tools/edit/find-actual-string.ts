// Where an edit's old_string is in the file: exactly, or — only when that fails — after
// straightening curly quotes, which models often get wrong. Trailing whitespace is not forgiven:
// the reference reports an old_string without the file's trailing spaces as not found, and a
// match that silently dropped them would change lines the model did not mean to touch.

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
  const needle = normalizeQuotes(search);
  if (needle.trim() === "") return { kind: "none" };
  // One quote character for one: positions in the normalised text are positions in the file.
  const normalized = normalizeQuotes(content);
  const count = countOccurrences(normalized, needle);
  if (count === 0) return { kind: "none" };
  if (count > 1) return { kind: "tolerant-ambiguous", count };
  const at = normalized.indexOf(needle);
  return { kind: "tolerant", actual: content.slice(at, at + needle.length), index: at };
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
