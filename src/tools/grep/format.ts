import { plural } from "../search/paths.js";
import type { GrepOutputMode } from "./types.js";

/** What Grep returns (PostToolUse hooks see this as `tool_response`). */
export interface GrepOutput {
  mode: GrepOutputMode;
  /** Files in this page. */
  numFiles: number;
  /** Paths in this page (relative to the cwd when inside it). */
  filenames: string[];
  /** Content mode: the lines; count mode: the `path:N` lines. */
  content?: string;
  /** Content mode: lines in this page. */
  numLines?: number;
  /** Count mode: total of the counts in this page. */
  numMatches?: number;
  /** Count mode: total of all counts, and files with a match, past the page too. */
  totalMatches?: number;
  totalFiles?: number;
  /** Set when more entries exist past this page. */
  appliedLimit?: number;
  /** Set when entries were skipped. */
  appliedOffset?: number;
  /** Set when the page is empty only because `offset` is past the last entry. */
  totalEntries?: number;
  /** Content mode with head_limit 0: output was cut at the memory cap. */
  outputCapped?: boolean;
  /** Which engine ran: the system ripgrep, or the built-in fallback. */
  engine: "ripgrep" | "builtin";
  /** A one-time note for the model (the fallback engine is in use). */
  notice?: string;
}

/** The page `[offset, offset + limit)` of `items`; limit 0 = everything from offset. */
export function paginate<T>(items: readonly T[], offset: number, limit: number): { page: T[]; truncated: boolean } {
  if (limit === 0) return { page: items.slice(offset), truncated: false };
  return { page: items.slice(offset, offset + limit), truncated: items.length > offset + limit };
}

export function paginationNotice(data: Pick<GrepOutput, "appliedLimit" | "appliedOffset">): string | undefined {
  const parts: string[] = [];
  if (data.appliedLimit !== undefined) parts.push(`limit: ${data.appliedLimit}`);
  if (data.appliedOffset !== undefined) parts.push(`offset: ${data.appliedOffset}`);
  return parts.length > 0 ? `[Showing results with pagination = ${parts.join(", ")}]` : undefined;
}

/** `limit: N, offset: M` as the reference appends it to a files or count summary. */
function paginationParts(data: Pick<GrepOutput, "appliedLimit" | "appliedOffset">): string {
  const parts: string[] = [];
  if (data.appliedLimit !== undefined) parts.push(`limit: ${data.appliedLimit}`);
  if (data.appliedOffset !== undefined) parts.push(`offset: ${data.appliedOffset}`);
  return parts.join(", ");
}

/** The text the model sees, in the reference's shapes (each mode words its pagination its own way). */
export function formatGrepResult(data: GrepOutput): string {
  const sections: string[] = [];
  const paging = paginationParts(data);
  if (data.totalEntries !== undefined) {
    sections.push(`No entries at this offset: the search found ${data.totalEntries} ${entryUnit(data.mode, data.totalEntries)} in all. Use an offset below ${data.totalEntries}.`);
  } else if (data.mode === "files_with_matches") {
    if (data.numFiles === 0) sections.push("No files found");
    else sections.push(`Found ${data.numFiles} ${plural(data.numFiles, "file")}${paging ? ` ${paging}` : ""}\n${data.filenames.join("\n")}`);
  } else if (data.mode === "content") {
    if (!data.content) sections.push("No matches found");
    else sections.push(data.content);
    const notice = paginationNotice(data);
    if (notice) sections.push(notice);
  } else if (!data.content) {
    sections.push("No matches found");
  } else {
    const n = data.totalMatches ?? data.numMatches ?? 0;
    const files = data.totalFiles ?? data.numFiles;
    const summary = `Found ${n} total ${plural(n, "occurrence")} across ${files} ${plural(files, "file")}.`;
    sections.push(`${data.content}\n\n${summary}${paging ? ` with pagination = ${paging}` : ""}`);
  }
  if (data.outputCapped) {
    const next = (data.appliedOffset ?? 0) + (data.numLines ?? 0);
    sections.push(`[Output stopped at the 10 MB cap after ${data.numLines ?? 0} lines: narrow the search, or continue with offset: ${next}]`);
  }
  if (data.notice) sections.push(data.notice);
  return sections.join("\n\n");
}

function entryUnit(mode: GrepOutputMode, n: number): string {
  return mode === "content" ? plural(n, "line") : plural(n, "file");
}
