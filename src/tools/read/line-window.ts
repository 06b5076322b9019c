import { createHash } from "node:crypto";
import type { FileHandle } from "node:fs/promises";
import { bomLength, type TextFormat } from "../../fs/encoding.js";

export interface LineWindowOptions {
  /** First line to return, 1-based. */
  offset: number;
  /** At most this many lines. */
  limit: number;
  /** Longer lines are cut here, with a marker. */
  maxLineChars: number;
  /** Stop before the numbered output would pass this many characters. */
  maxOutputChars: number;
  /** Hash every byte read (for a read from the start, which may turn out to be the whole file). */
  hash: boolean;
  signal?: AbortSignal;
  chunkBytes?: number;
}

export interface LineWindow {
  lines: string[];
  startLine: number;
  /** Why the window ended: the end of the file, the line limit, or the output budget. */
  endedBy: "eof" | "limit" | "budget";
  /** Known only when the file was scanned to its end. */
  totalLines?: number;
  /** Lines holding content: totalLines without the empty line after a final newline. */
  contentLines?: number;
  /** Lines that were cut at maxLineChars. */
  truncatedLines: number;
  /** sha256 of the whole file, when it was read from byte 0 to the end. */
  contentHash?: string;
}

export const TRUNCATED_LINE_MARKER = "… [line truncated]";

/** How a line splitter sees one chunk: bytes (UTF-8, Latin-1) or decoded text (UTF-16). */
interface Splitter<T> {
  indexOfNewline(data: T, from: number): number;
  length(data: T): number;
  slice(data: T, start: number, end: number): T;
  toText(pieces: T[]): string;
}

function byteSplitter(encoding: "utf8" | "latin1"): Splitter<Buffer> {
  return {
    indexOfNewline: (data, from) => data.indexOf(10, from),
    length: (data) => data.length,
    // A copy: the read buffer is reused for the next chunk.
    slice: (data, start, end) => Buffer.from(data.subarray(start, end)),
    toText: (pieces) => Buffer.concat(pieces).toString(encoding),
  };
}

const textSplitter: Splitter<string> = {
  indexOfNewline: (data, from) => data.indexOf("\n", from),
  length: (data) => data.length,
  slice: (data, start, end) => data.slice(start, end),
  toText: (pieces) => pieces.join(""),
};

// Read buffers are reused across calls: a few MB each, allocated again for every Read they would
// pile up as garbage faster than the collector returns them.
const DEFAULT_CHUNK_BYTES = 4 << 20;
const spareBuffers: Buffer[] = [];

function takeBuffer(size: number): Buffer {
  if (size === DEFAULT_CHUNK_BYTES) return spareBuffers.pop() ?? Buffer.allocUnsafe(size);
  return Buffer.allocUnsafe(size);
}

function giveBack(buffer: Buffer): void {
  if (buffer.length === DEFAULT_CHUNK_BYTES && spareBuffers.length < 2) spareBuffers.push(buffer);
}

/**
 * Lines `offset … offset+limit-1` of an open file, streamed a chunk at a time: memory stays at
 * one chunk plus the window, whatever the file's size. Lines before the window are counted by
 * scanning for newline bytes, never decoded.
 */
export async function readLineWindow(handle: FileHandle, format: TextFormat, options: LineWindowOptions): Promise<LineWindow> {
  const chunkBytes = options.chunkBytes ?? DEFAULT_CHUNK_BYTES;
  const buffer = takeBuffer(chunkBytes);
  try {
    return await scanLines(handle, format, options, buffer);
  } finally {
    giveBack(buffer);
  }
}

async function scanLines(handle: FileHandle, format: TextFormat, options: LineWindowOptions, buffer: Buffer): Promise<LineWindow> {
  const chunkBytes = buffer.length;
  const hash = options.hash ? createHash("sha256") : undefined;
  const isText = format.encoding === "utf16le" || format.encoding === "utf16be";
  const decoder = isText ? new TextDecoder(format.encoding === "utf16le" ? "utf-16le" : "utf-16be") : undefined;
  const splitter = (isText ? textSplitter : byteSplitter(format.encoding as "utf8" | "latin1")) as Splitter<Buffer | string>;
  // Per-line cap on what is kept: enough for maxLineChars characters in any encoding.
  const keepUnits = isText ? options.maxLineChars + 1 : options.maxLineChars * 4 + 4;

  const lines: string[] = [];
  let truncatedLines = 0;
  let outputChars = 0;
  let lineNo = 1;
  let lineHasData = false;
  let pieces: Array<Buffer | string> = [];
  let kept = 0;
  let cut = false;
  let position = 0;
  let skip = bomLength(format);
  let endedBy: LineWindow["endedBy"] | undefined;

  /** Closes the current in-window line; false when the output budget is spent. */
  const finishLine = (): boolean => {
    let text = splitter.toText(pieces);
    if (text.endsWith("\r")) text = text.slice(0, -1);
    if (cut || text.length > options.maxLineChars) {
      text = text.slice(0, options.maxLineChars) + TRUNCATED_LINE_MARKER;
      truncatedLines++;
    }
    const cost = text.length + String(lineNo).length + 2;
    if (lines.length > 0 && outputChars + cost > options.maxOutputChars) return false;
    outputChars += cost;
    lines.push(text);
    pieces = [];
    kept = 0;
    cut = false;
    return true;
  };

  const addPiece = (data: Buffer | string, start: number, end: number): void => {
    if (end > start) lineHasData = true;
    const room = keepUnits - kept;
    if (room <= 0) {
      if (end > start) cut = true;
      return;
    }
    const take = Math.min(room, end - start);
    if (take > 0) {
      pieces.push(splitter.slice(data, start, start + take));
      kept += take;
    }
    if (take < end - start) cut = true;
  };

  scan: for (;;) {
    if (options.signal?.aborted) throw new Error("Read was aborted.");
    const { bytesRead } = await handle.read(buffer, 0, chunkBytes, position);
    if (bytesRead === 0) break;
    position += bytesRead;
    const raw = buffer.subarray(0, bytesRead);
    hash?.update(raw);
    let data: Buffer | string = raw.subarray(Math.min(skip, bytesRead));
    skip = Math.max(0, skip - bytesRead);
    if (decoder) data = decoder.decode(data, { stream: true });
    const length = splitter.length(data);
    let p = 0;
    while (p < length) {
      if (lineNo < options.offset) {
        const nl = splitter.indexOfNewline(data, p);
        if (nl === -1) {
          lineHasData = true;
          break;
        }
        lineNo++;
        lineHasData = false;
        p = nl + 1;
        continue;
      }
      if (!lineHasData && pieces.length === 0 && lines.length >= options.limit) {
        endedBy = "limit";
        break scan;
      }
      const nl = splitter.indexOfNewline(data, p);
      addPiece(data, p, nl === -1 ? length : nl);
      if (nl === -1) break;
      if (!finishLine()) {
        endedBy = "budget";
        break scan;
      }
      lineNo++;
      lineHasData = false;
      p = nl + 1;
    }
  }

  // Lines are numbered as `text.split("\n")` numbers them, as the reference agent shows them:
  // "a\n" is line 1 "a" and line 2 "" (an empty file has no lines).
  const endsWithNewline = endedBy === undefined && !lineHasData && lineNo > 1;
  if (endedBy === undefined) {
    endedBy = "eof";
    if (lineHasData || lineNo > 1) {
      if (lineNo >= options.offset && lines.length < options.limit) {
        if (!finishLine()) endedBy = "budget";
      }
      if (endedBy === "eof") lineNo++;
    }
  }
  const window: LineWindow = { lines, startLine: options.offset, endedBy, truncatedLines };
  if (endedBy === "eof") {
    window.totalLines = lineNo - 1;
    window.contentLines = endsWithNewline ? lineNo - 2 : lineNo - 1;
    if (hash) window.contentHash = hash.digest("hex");
  }
  return window;
}
