import { createReadStream } from "node:fs";
import { open } from "node:fs/promises";
import { StringDecoder } from "node:string_decoder";
import { GrepSearchError, MAX_COLUMNS, type GrepEntry, type GrepOutputMode, type GrepSink } from "../types.js";

/** What a file search needs besides the file. */
export interface FileSearch {
  regex: RegExp;
  mode: GrepOutputMode;
  onlyMatching: boolean;
  multiline: boolean;
  before: number;
  after: number;
  sink: GrepSink;
  /** The file was given as the search path: binary files are searched, not skipped (as in ripgrep). */
  explicit: boolean;
  /** Shared across files: whether any line was printed yet (for `--` between files). */
  printed: { any: boolean };
}

/** ripgrep looks for a NUL byte in the first block to call a file binary and skip it. */
const BINARY_PROBE = 64 * 1024;
/** Multiline search holds the whole file; past this it asks for ripgrep. */
const MULTILINE_MAX_BYTES = 256 * 1024 * 1024;

/** Searches one file; returns false when the sink asked to stop. */
export async function searchFile(path: string, search: FileSearch): Promise<boolean> {
  return search.multiline ? searchWhole(path, search) : searchLines(path, search);
}

/**
 * Prints matching lines with their context the way ripgrep does: `--` between groups that
 * are not adjacent (and between files), each line once.
 */
class ContextPrinter {
  private readonly pending: Array<{ n: number; text: string }> = [];
  private afterLeft = 0;
  private lastPrinted = 0;

  constructor(private readonly path: string, private readonly s: FileSearch) {}

  /** `hit`: undefined for a non-matching line, else the texts to print (`[text]`, or the `-o` parts). */
  line(n: number, text: string, hit: readonly string[] | undefined): boolean {
    const { before, after } = this.s;
    if (hit) {
      const first = this.pending.length > 0 ? this.pending[0]!.n : n;
      if ((before > 0 || after > 0) && this.s.printed.any && (this.lastPrinted === 0 || first > this.lastPrinted + 1)) {
        if (!this.s.sink({ kind: "separator" })) return false;
      }
      for (const p of this.pending) if (!this.emit(p.n, p.text, false)) return false;
      this.pending.length = 0;
      for (const part of hit) if (!this.emit(n, part, true)) return false;
      this.afterLeft = after;
    } else if (this.afterLeft > 0) {
      this.afterLeft--;
      return this.emit(n, text, false);
    } else if (before > 0) {
      this.pending.push({ n, text });
      if (this.pending.length > before) this.pending.shift();
    }
    return true;
  }

  private emit(n: number, text: string, match: boolean): boolean {
    this.lastPrinted = n;
    this.s.printed.any = true;
    const shown = Buffer.byteLength(text) > MAX_COLUMNS ? (match ? "[Omitted long matching line]" : "[Omitted long context line]") : text;
    const entry: GrepEntry = { kind: "line", path: this.path, line: n, match, text: shown };
    return this.s.sink(entry);
  }
}

function binaryNote(offset: number): string {
  return `binary file matches (found "\\0" byte around offset ${offset})`;
}

function matchesIn(regex: RegExp, text: string): string[] {
  const parts: string[] = [];
  regex.lastIndex = 0;
  for (let m = regex.exec(text); m; m = regex.exec(text)) {
    if (m[0] === "") {
      regex.lastIndex++;
      continue;
    }
    parts.push(m[0]);
  }
  return parts;
}

function lineHit(s: FileSearch, text: string): readonly string[] | undefined {
  s.regex.lastIndex = 0;
  if (!s.regex.test(text)) return undefined;
  if (!s.onlyMatching) return [text];
  const parts = matchesIn(s.regex, text);
  return parts.length > 0 ? parts : undefined;
}

/** Line by line over a stream: bounded memory, stops early. */
async function searchLines(path: string, s: FileSearch): Promise<boolean> {
  const stream = createReadStream(path, { highWaterMark: BINARY_PROBE });
  const decoder = new StringDecoder("utf8");
  const printer = s.mode === "content" ? new ContextPrinter(path, s) : undefined;
  let carry = "";
  let n = 0;
  let count = 0;
  let first = true;
  let go = true;
  let offset = 0;
  let binaryAt = -1;
  // Returns false to stop reading this file (found for -l, or the sink is full).
  const onLine = (text: string): boolean => {
    n++;
    if (printer && binaryAt >= 0) {
      // An explicit binary file: no lines, one note at the first match.
      s.regex.lastIndex = 0;
      if (!s.regex.test(text)) return true;
      go = s.sink({ kind: "note", path, text: binaryNote(binaryAt) });
      return false;
    }
    if (printer) {
      go = printer.line(n, text, lineHit(s, text));
      return go;
    }
    s.regex.lastIndex = 0;
    if (!s.regex.test(text)) return true;
    count++;
    return s.mode !== "files_with_matches";
  };
  try {
    reading: for await (const chunk of stream as AsyncIterable<Buffer>) {
      let nul = chunk.indexOf(0);
      if (nul >= 0 && s.explicit) {
        if (binaryAt < 0) binaryAt = offset + nul;
        nul = -1; // searched to the end, as ripgrep does with a file it was given
      }
      if (nul >= 0 && first) return true; // binary: skipped
      first = false;
      offset += chunk.length;
      const text = carry + decoder.write(nul >= 0 ? chunk.subarray(0, nul) : chunk);
      const lines = text.split("\n");
      carry = nul >= 0 ? "" : lines.pop()!;
      for (const line of lines) if (!onLine(line)) break reading;
      if (nul >= 0) break;
    }
    if (go && carry !== "") onLine(carry);
  } catch {
    return true; // unreadable: skipped, as ripgrep does (it reports it on stderr)
  } finally {
    stream.destroy();
  }
  if (s.mode === "files_with_matches") return count === 0 || s.sink({ kind: "file", path });
  if (s.mode === "count") return count === 0 || s.sink({ kind: "count", path, count });
  return go;
}

/** Multiline: the whole file at once, matches may span lines. */
async function searchWhole(path: string, s: FileSearch): Promise<boolean> {
  let buf: Buffer;
  try {
    const handle = await open(path, "r");
    try {
      const size = (await handle.stat()).size;
      if (size > MULTILINE_MAX_BYTES) {
        throw new GrepSearchError(`${path} is ${size} bytes, too large for a multiline search without ripgrep. Install ripgrep (rg), or narrow path or glob.`);
      }
      buf = await handle.readFile();
    } finally {
      await handle.close();
    }
  } catch (err) {
    if (err instanceof GrepSearchError) throw err;
    return true;
  }
  const nul = buf.indexOf(0);
  if (nul >= 0 && nul < BINARY_PROBE && !s.explicit) return true;
  const cutAtNul = nul >= 0 && !s.explicit;
  const text = (cutAtNul ? buf.subarray(0, buf.lastIndexOf(10, nul) + 1) : buf).toString("utf8");
  if (text === "") return true;
  const starts = [0];
  for (let i = text.indexOf("\n"); i >= 0 && i < text.length - 1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  const lineOf = (offset: number): number => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  // Matched line ranges; matches sharing a line merge (ripgrep counts them once).
  const ranges: Array<{ from: number; to: number; parts: Map<number, string[]> }> = [];
  s.regex.lastIndex = 0;
  for (let m = s.regex.exec(text); m; m = s.regex.exec(text)) {
    const start = m.index;
    const end = start + m[0].length;
    if (m[0] === "") s.regex.lastIndex++;
    if (start >= text.length && text.length > 0) break;
    const from = lineOf(start);
    const to = lineOf(Math.max(start, end - 1));
    const last = ranges[ranges.length - 1];
    const range = last && from <= last.to ? last : { from, to, parts: new Map<number, string[]>() };
    if (range !== last) ranges.push(range);
    range.to = Math.max(range.to, to);
    if (s.onlyMatching && m[0] !== "") {
      let offset = start;
      for (const piece of m[0].split("\n")) {
        const line = lineOf(offset);
        if (piece !== "") range.parts.set(line, [...(range.parts.get(line) ?? []), piece]);
        offset += piece.length + 1;
      }
    }
    if (s.mode === "files_with_matches") break;
  }
  if (ranges.length === 0) return true;
  if (s.mode === "files_with_matches") return s.sink({ kind: "file", path });
  if (s.mode === "count") return s.sink({ kind: "count", path, count: ranges.length });
  if (s.explicit && nul >= 0) return s.sink({ kind: "note", path, text: binaryNote(nul) });
  const lineText = (i: number): string => {
    const end = i + 1 < starts.length ? starts[i + 1]! - 1 : text.endsWith("\n") ? text.length - 1 : text.length;
    return text.slice(starts[i]!, end);
  };
  const printer = new ContextPrinter(path, s);
  const lastLine = Math.min(starts.length - 1, ranges[ranges.length - 1]!.to + s.after);
  let r = 0;
  for (let i = 0; i <= lastLine; i++) {
    while (r < ranges.length && ranges[r]!.to < i) r++;
    const range = ranges[r];
    const inRange = range !== undefined && range.from <= i && i <= range.to;
    const content = lineText(i);
    let hit: readonly string[] | undefined;
    if (inRange) hit = s.onlyMatching ? range.parts.get(i) : [content];
    if (inRange && s.onlyMatching && !hit) continue;
    if (!printer.line(i + 1, content, hit)) return false;
  }
  return true;
}
