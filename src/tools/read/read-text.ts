import { open } from "node:fs/promises";
import { detectEncoding, looksBinary } from "../../fs/encoding.js";
import { readLineWindow } from "./line-window.js";

export interface TextReadData {
  type: "text";
  file: {
    filePath: string;
    /** The lines shown, without numbers, joined with \n. */
    content: string;
    numLines: number;
    startLine: number;
    /** Known when the read reached the end of the file. */
    totalLines?: number;
    /** totalLines without the empty line after a final newline (what a full read must cover). */
    contentLines?: number;
  };
  /** Notices for the model after the lines (empty file, more lines, cut lines). */
  notices: string[];
}

export interface TextWindowRequest {
  offset: number;
  limit: number;
  maxLineChars: number;
  maxOutputTokens: number;
  /** Add a `[Showing lines …]` notice after a window that stops before the end. */
  windowNotice?: boolean;
}

const SAMPLE_BYTES = 64 * 1024;

export const EMPTY_FILE_NOTICE = "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>";

export function pastEndNotice(offset: number, totalLines: number): string {
  return `<system-reminder>Warning: the file exists but is shorter than the provided offset (${offset}). The file has ${totalLines} line${totalLines === 1 ? "" : "s"}.</system-reminder>`;
}

/** Shown after the lines of a file that is not valid UTF-8 (the reference's text). */
export const INVALID_UTF8_NOTICE =
  "[This file is not valid UTF-8: it uses a legacy encoding such as Windows-1252, Shift-JIS or GBK, or it is binary. Its undecodable bytes show above as U+FFFD. Edit and Write will refuse it: change it with a shell command that keeps its encoding, or ask the user whether to convert it to UTF-8.]";

export function binaryFileMessage(path: string, kind: string): string {
  return `${path} is a binary file (${kind}); Read shows text, images (png, jpg, gif, webp), PDFs and notebooks only. Use Bash (e.g. file, xxd | head) if you need to inspect it.`;
}

/**
 * A window of a text file's lines, streamed. Also says whether the whole file was seen (and
 * its hash) so Read can record a full or a partial read.
 */
export async function readText(
  path: string,
  size: number,
  request: TextWindowRequest,
  signal?: AbortSignal,
): Promise<{ data: TextReadData; full: boolean; contentHash?: string }> {
  const handle = await open(path, "r");
  try {
    const sample = Buffer.alloc(Math.min(SAMPLE_BYTES, size));
    const { bytesRead } = await handle.read(sample, 0, sample.length, 0);
    const head = sample.subarray(0, bytesRead);
    const detected = detectEncoding(head, bytesRead >= size);
    if (looksBinary(head.subarray(0, 8192), detected)) throw new Error(binaryFileMessage(path, "detected from its content"));
    // Bytes that are not UTF-8 are shown as U+FFFD, not guessed as Latin-1: the model sees that
    // the file is in a legacy encoding, and the writers refuse to re-encode it.
    const invalidUtf8 = detected.encoding === "latin1";
    const format = invalidUtf8 ? { encoding: "utf8" as const, bom: false } : detected;
    const fromStart = request.offset <= 1;
    const window = await readLineWindow(handle, format, {
      offset: Math.max(1, request.offset),
      limit: request.limit,
      maxLineChars: request.maxLineChars,
      maxOutputChars: request.maxOutputTokens * 4,
      hash: fromStart,
      signal,
      // A small file needs a small buffer; large ones stream through the shared 4 MiB buffers.
      ...(size < 4 << 20 ? { chunkBytes: Math.max(64 * 1024, size + 1) } : {}),
    });
    const { lines, startLine } = window;
    const end = startLine + lines.length - 1;
    const notices: string[] = [];
    if (window.totalLines === 0) notices.push(EMPTY_FILE_NOTICE);
    else if (lines.length === 0 && window.totalLines !== undefined) notices.push(pastEndNotice(startLine, window.totalLines));
    // The reference agent returns a window bare; the notice is opt-in.
    if (window.endedBy === "limit" && request.windowNotice === true) {
      notices.push(`[Showing lines ${startLine}-${end}; the file has more lines. Call Read with offset=${end + 1} to continue.]`);
    } else if (window.endedBy === "budget") {
      notices.push(
        `[Partial view: lines ${startLine}-${end}, cut at about ${request.maxOutputTokens.toLocaleString("en-US")} tokens. Call Read with offset=${end + 1} to continue, or with a smaller limit.]`,
      );
    }
    if (invalidUtf8 && lines.length > 0) notices.push(INVALID_UTF8_NOTICE);
    if (window.truncatedLines > 0) {
      notices.push(`[${window.truncatedLines} line${window.truncatedLines === 1 ? " was" : "s were"} longer than ${request.maxLineChars} characters and cut.]`);
    }
    const data: TextReadData = {
      type: "text",
      // The reference numbers from the offset it was given: offset 0 shows line 1 as "0".
      file: { filePath: path, content: lines.join("\n"), numLines: lines.length, startLine: request.offset === 0 ? 0 : startLine },
      notices,
    };
    if (window.totalLines !== undefined) data.file.totalLines = window.totalLines;
    if (window.contentLines !== undefined) data.file.contentLines = window.contentLines;
    const full = fromStart && window.endedBy === "eof";
    return full && window.contentHash !== undefined ? { data, full, contentHash: window.contentHash } : { data, full: false };
  } finally {
    await handle.close();
  }
}

/** `<n>\t<line>` from startLine, then the notices. */
export function formatTextRead(data: TextReadData): string {
  const parts: string[] = [];
  if (data.file.numLines > 0) {
    const lines = data.file.content.split("\n");
    parts.push(lines.map((line, i) => `${data.file.startLine + i}\t${line}`).join("\n"));
  }
  parts.push(...data.notices);
  return parts.join("\n\n");
}
