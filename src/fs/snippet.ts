import type { StructuredPatchHunk } from "diff";

export const SNIPPET_MAX_LINE_CHARS = 2000;

/** Lines `from … from+count-1` (1-based) of `text`, without line breaks. */
function linesAt(text: string, from: number, count: number): string[] {
  let offset = 0;
  for (let line = 1; line < from; line++) {
    const nl = text.indexOf("\n", offset);
    if (nl === -1) return [];
    offset = nl + 1;
  }
  const out: string[] = [];
  while (out.length < count && offset <= text.length) {
    const nl = text.indexOf("\n", offset);
    const end = nl === -1 ? text.length : nl;
    // Like Read: a line longer than SNIPPET_MAX_LINE_CHARS is cut, so one huge line cannot flood the result.
    const line = text.slice(offset, Math.min(end, offset + SNIPPET_MAX_LINE_CHARS + 1));
    const clean = line.endsWith("\r") ? line.slice(0, -1) : line;
    out.push(clean.length > SNIPPET_MAX_LINE_CHARS ? `${clean.slice(0, SNIPPET_MAX_LINE_CHARS)}… [line truncated]` : clean);
    if (nl === -1) break;
    offset = nl + 1;
  }
  return out;
}

/**
 * The changed regions of the new text, numbered like Read (`<n>\t<line>`), with the hunks'
 * context lines; at most `maxLines` lines, further hunks are summarised.
 */
export function numberedSnippet(newText: string, hunks: readonly StructuredPatchHunk[], maxLines = 40): string {
  const parts: string[] = [];
  let used = 0;
  for (const [i, hunk] of hunks.entries()) {
    if (used >= maxLines) {
      parts.push(`… (${hunks.length - i} more changed region${hunks.length - i === 1 ? "" : "s"})`);
      break;
    }
    const count = Math.min(hunk.newLines, maxLines - used);
    const lines = linesAt(newText, hunk.newStart, count);
    parts.push(lines.map((line, j) => `${hunk.newStart + j}\t${line}`).join("\n"));
    used += lines.length;
    if (count < hunk.newLines) parts.push("…");
  }
  return parts.join("\n…\n");
}
