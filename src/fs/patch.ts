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

/** Changed text (old + new, after the common ends are cut off) beyond which no diff is made. */
export const MAX_DIFF_CHARS = 2_000_000;
/** How long the Myers diff of the changed stretch may run before the coarse diff replaces it. */
const DIFF_TIMEOUT_MS = 50;

/** The diff of a write: hunks, or (beyond MAX_DIFF_CHARS of changed text) only the sizes. */
export interface WriteDiff {
  hunks: StructuredPatchHunk[];
  /** Set when the change was too large to diff: the hunks are then empty. */
  omitted?: { oldChars: number; newChars: number };
}

/** What a result says instead of a diff that was not made. */
export function tooLargeToDiffNote(sizes: { oldChars: number; newChars: number }): string {
  return `The file was rewritten: ${sizes.oldChars} characters before, ${sizes.newChars} after; the change is too large to show as a diff.`;
}

/** Lines of `text`, each with its newline (the last one without, when the text has none). */
function splitLines(text: string): string[] {
  const lines: string[] = [];
  let from = 0;
  for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", from)) {
    lines.push(text.slice(from, nl + 1));
    from = nl + 1;
  }
  if (from < text.length) lines.push(text.slice(from));
  return lines;
}

/** Hunk lines without their newline, with the unified-diff marker after a line that has none. */
function hunkLines(prefixed: string[]): string[] {
  const out: string[] = [];
  for (const line of prefixed) {
    if (line.endsWith("\n")) out.push(line.slice(0, -1));
    else out.push(line, "\\ No newline at end of file");
  }
  return out;
}

/**
 * The cut-off's answer, linear in the size: one hunk that removes every old line of the
 * stretch and adds every new one, between the lines the two have in common at either end.
 * Not minimal, always correct.
 */
export function coarseHunk(oldText: string, newText: string, skipped: number): StructuredPatchHunk {
  const a = splitLines(oldText);
  const b = splitLines(newText);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const before = a.slice(Math.max(0, head - CONTEXT_LINES), head);
  const after = a.slice(a.length - tail, a.length - tail + CONTEXT_LINES);
  const removed = a.slice(head, a.length - tail);
  const added = b.slice(head, b.length - tail);
  const first = skipped + head - before.length + 1;
  return {
    oldStart: first,
    oldLines: before.length + removed.length + after.length,
    newStart: first,
    newLines: before.length + added.length + after.length,
    lines: hunkLines([...before.map((l) => ` ${l}`), ...removed.map((l) => `-${l}`), ...added.map((l) => `+${l}`), ...after.map((l) => ` ${l}`)]),
  };
}

/**
 * Unified-diff hunks (the `diff` package's structuredPatch) between two versions of a file.
 * Only the changed stretch plus context is diffed, so a one-line edit of a 50 MB file costs a
 * few string comparisons, not a diff of 50 MB. The diff of that stretch is bounded: Myers may
 * run DIFF_TIMEOUT_MS, then a coarse linear diff replaces it; beyond MAX_DIFF_CHARS of changed
 * text there is no diff at all, only the sizes (a rewrite of a large file).
 */
export function diffWrite(oldText: string, newText: string): WriteDiff {
  if (oldText === newText) return { hunks: [] };
  const prefix = commonPrefixLength(oldText, newText);
  const suffix = commonSuffixLength(oldText, newText, prefix);
  if (oldText.length - prefix - suffix + newText.length - prefix - suffix > MAX_DIFF_CHARS) {
    return { hunks: [], omitted: { oldChars: oldText.length, newChars: newText.length } };
  }
  const start = lineStartBefore(oldText, prefix, CONTEXT_LINES);
  const oldEnd = lineEndAfter(oldText, oldText.length - suffix, CONTEXT_LINES);
  const newEnd = newText.length - (oldText.length - oldEnd);
  const skipped = countLines(oldText, start);
  const oldPart = oldText.slice(start, oldEnd);
  const newPart = newText.slice(start, newEnd);
  const patch = structuredPatch("a", "b", oldPart, newPart, undefined, undefined, { context: CONTEXT_LINES, timeout: DIFF_TIMEOUT_MS });
  if (patch === undefined) return { hunks: [coarseHunk(oldPart, newPart, skipped)] };
  return { hunks: patch.hunks.map((h) => ({ ...h, oldStart: h.oldStart + skipped, newStart: h.newStart + skipped })) };
}

/** The hunks of `diffWrite` (none when the change was too large to diff). */
export function diffHunks(oldText: string, newText: string): StructuredPatchHunk[] {
  return diffWrite(oldText, newText).hunks;
}
