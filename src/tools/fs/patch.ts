// The one module of `diff` this needs (the package entry loads all of its ~20 modules).
import { structuredPatch } from "diff/lib/patch/create.js";
import type { StructuredPatchHunk } from "diff";

const CONTEXT_LINES = 3;
const CHUNK = 4096;

/** Length of the common prefix of `a` and `b`, compared a chunk at a time. */
export function commonPrefixLength(a: string, b: string): number {
  const max = Math.min(a.length, b.length);
  let i = 0;
  while (i + CHUNK <= max && a.slice(i, i + CHUNK) === b.slice(i, i + CHUNK)) i += CHUNK;
  while (i < max && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** Length of the common suffix of `a` and `b`, not overlapping a prefix of `limit` characters. */
export function commonSuffixLength(a: string, b: string, limit: number): number {
  const max = Math.min(a.length, b.length) - limit;
  let n = 0;
  while (n + CHUNK <= max && a.slice(a.length - n - CHUNK, a.length - n) === b.slice(b.length - n - CHUNK, b.length - n)) n += CHUNK;
  while (n < max && a.charCodeAt(a.length - 1 - n) === b.charCodeAt(b.length - 1 - n)) n++;
  return n;
}

function countLines(text: string, end: number): number {
  let n = 0;
  let i = text.indexOf("\n");
  while (i !== -1 && i < end) {
    n++;
    i = text.indexOf("\n", i + 1);
  }
  return n;
}

/** Start of the line `back` lines before the line holding `offset`. */
function lineStartBefore(text: string, offset: number, back: number): number {
  let start = text.lastIndexOf("\n", offset - 1) + 1;
  for (let i = 0; i < back && start > 0; i++) start = text.lastIndexOf("\n", start - 2) + 1;
  return start;
}

/** End (after the newline) of the line `ahead` lines after the line holding `offset`. */
function lineEndAfter(text: string, offset: number, ahead: number): number {
  let end = offset;
  for (let i = 0; i <= ahead; i++) {
    const nl = text.indexOf("\n", end);
    if (nl === -1) return text.length;
    end = nl + 1;
  }
  return end;
}

/**
 * Unified-diff hunks (the `diff` package's structuredPatch) between two versions of a file.
 * Only the changed stretch plus context is diffed, so a one-line edit of a 50 MB file costs a
 * few string comparisons, not a diff of 50 MB.
 */
export function diffHunks(oldText: string, newText: string): StructuredPatchHunk[] {
  if (oldText === newText) return [];
  const prefix = commonPrefixLength(oldText, newText);
  const suffix = commonSuffixLength(oldText, newText, prefix);
  const start = lineStartBefore(oldText, prefix, CONTEXT_LINES);
  const oldEnd = lineEndAfter(oldText, oldText.length - suffix, CONTEXT_LINES);
  const newEnd = newText.length - (oldText.length - oldEnd);
  const skipped = countLines(oldText, start);
  const patch = structuredPatch("a", "b", oldText.slice(start, oldEnd), newText.slice(start, newEnd), undefined, undefined, {
    context: CONTEXT_LINES,
  });
  return patch.hunks.map((h) => ({ ...h, oldStart: h.oldStart + skipped, newStart: h.newStart + skipped }));
}
