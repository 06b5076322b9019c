// A command's output lives in a file: the command's stdout and stderr are that file (the kernel
// writes it as the command writes, in the order it writes, with no copy through this process).
// Everything here reads bounded parts of it: memory stays flat whatever the volume.
import { closeSync, fstatSync, ftruncateSync, readSync, writeSync } from "node:fs";
import { open } from "node:fs/promises";
import { TextDecoder } from "node:util";

const decoder = new TextDecoder("utf-8");

/** Decodes bytes that may not be UTF-8: invalid sequences become U+FFFD, nothing throws. */
export function decodeSafely(bytes: Buffer): string {
  return decoder.decode(bytes);
}

/** Decodes the start of a stream, dropping a character cut in half at the end. */
function decodeHead(bytes: Buffer): string {
  let end = bytes.length;
  // Back off over a trailing partial UTF-8 sequence (at most 3 bytes).
  for (let i = 1; i <= 3 && i <= bytes.length; i++) {
    const b = bytes[bytes.length - i]!;
    if ((b & 0xc0) === 0x80) continue;
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    if (need > i) end = bytes.length - i;
    break;
  }
  return decoder.decode(bytes.subarray(0, end));
}

/** Decodes the end of a stream, skipping a character cut in half at the start. */
function decodeTail(bytes: Buffer): string {
  let start = 0;
  while (start < 3 && start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start++;
  return decoder.decode(bytes.subarray(start));
}

/** Cuts without splitting a surrogate pair. */
function sliceChars(text: string, from: number, to?: number): string {
  let a = from < 0 ? Math.max(0, text.length + from) : from;
  let b = to === undefined ? text.length : to;
  if (a > 0 && a < text.length && isLowSurrogate(text.charCodeAt(a))) a++;
  if (b > 0 && b < text.length && isLowSurrogate(text.charCodeAt(b))) b--;
  return text.slice(a, b);
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

export interface InlineText {
  text: string;
  /** Bytes of the stream not shown inline. */
  omittedBytes: number;
  truncated: boolean;
}

/**
 * At most `maxChars` characters of a stream: all of it, or its head and its tail around a
 * marker where the middle is left out, naming the file with the full output. `tail` is
 * undefined when `head` is the whole stream.
 */
export function inlineFromParts(head: Buffer, tail: Buffer | undefined, total: number, maxChars: number, outputPath: string | undefined): InlineText {
  if (tail === undefined) {
    const text = decodeSafely(head);
    if (text.length <= maxChars) return { text, omittedBytes: 0, truncated: false };
    tail = head;
  }
  const half = Math.max(1, Math.floor((maxChars - 400) / 2));
  const headText = sliceChars(decodeHead(head), 0, half);
  const tailText = sliceChars(decodeTail(tail), -half);
  const shown = Buffer.byteLength(headText) + Buffer.byteLength(tailText);
  const omittedBytes = Math.max(0, total - shown);
  const where = outputPath
    ? `The full output (${formatBytes(total)}) is in ${outputPath}; read parts of it with Read (offset, limit) or Grep, or with tail, head or sed -n in Bash.`
    : `The full output was ${formatBytes(total)}.`;
  const marker = `\n\n... [${formatBytes(omittedBytes)} of output omitted here. ${where}] ...\n\n`;
  return { text: headText + marker + tailText, omittedBytes, truncated: true };
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} bytes`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(2)} GB`;
}

export interface OutputRange extends InlineText {
  /** The offset to read from next time. */
  end: number;
  /** Bytes that were new since `from`. */
  newBytes: number;
}

/**
 * What `path` holds from byte `from` on, at most `maxChars` characters inline (head and tail
 * when there is more). Reads two ranges at most. A missing file is empty.
 */
export async function readOutputRange(path: string, from: number, maxChars: number): Promise<OutputRange> {
  let handle;
  try {
    handle = await open(path, "r");
  } catch {
    return { text: "", omittedBytes: 0, truncated: false, end: from, newBytes: 0 };
  }
  try {
    const size = (await handle.stat()).size;
    const start = Math.min(from, size);
    const length = size - start;
    // 4 bytes a character at most: a range that fits is never cut, one that does not is cut cleanly.
    const window = maxChars * 4;
    const read = async (position: number, n: number): Promise<Buffer> => {
      const buf = Buffer.alloc(n);
      const { bytesRead } = await handle.read(buf, 0, n, position);
      return buf.subarray(0, bytesRead);
    };
    if (length <= window) {
      const whole = await read(start, length);
      return { ...inlineFromParts(whole, undefined, whole.length, maxChars, path), end: start + whole.length, newBytes: whole.length };
    }
    const head = await read(start, window);
    const tail = await read(size - window, window);
    return { ...inlineFromParts(head, tail, length, maxChars, path), end: size, newBytes: length };
  } finally {
    await handle.close();
  }
}

/** The largest output read whole to be shown as an image. */
export const MAX_IMAGE_BYTES = 20 * 1024 * 1024;

/** The whole output when it may be an image (image magic bytes or a data: URI at the start). */
export async function readImageCandidate(path: string, size: number): Promise<Buffer | undefined> {
  if (size < 12 || size > MAX_IMAGE_BYTES) return undefined;
  const handle = await open(path, "r");
  try {
    const start = Buffer.alloc(16);
    await handle.read(start, 0, 16, 0);
    if (!looksLikeImageStart(start)) return undefined;
    const all = Buffer.alloc(size);
    const { bytesRead } = await handle.read(all, 0, size, 0);
    return all.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** PNG, JPEG, GIF, WebP magic bytes, or a `data:image/…;base64,` URI. */
export function looksLikeImageStart(start: Buffer): boolean {
  return imageTypeOf(start) !== undefined || start.subarray(0, 11).toString("latin1") === "data:image/";
}

export function imageTypeOf(bytes: Buffer): "image/png" | "image/jpeg" | "image/gif" | "image/webp" | undefined {
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return "image/png";
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "image/jpeg";
  if (bytes.length >= 6 && ["GIF87a", "GIF89a"].includes(bytes.subarray(0, 6).toString("latin1"))) return "image/gif";
  if (bytes.length >= 12 && bytes.subarray(0, 4).toString("latin1") === "RIFF" && bytes.subarray(8, 12).toString("latin1") === "WEBP") return "image/webp";
  return undefined;
}

/** What a call's output file keeps of output larger than the limit (keepHeadAndTail). */
export interface KeptOutput {
  /** Bytes the command wrote in all. */
  totalBytes: number;
  /** Bytes kept from its start, and from its end (with a line between them saying so). */
  headBytes: number;
  tailBytes: number;
}

const COPY_CHUNK = 1024 * 1024;

/**
 * Cuts an output file of `size` bytes (open read/write on `fd`) to its first and last
 * `keepBytes / 2` bytes, with a line between them naming what was left out, so that what a
 * call leaves in the session folder is bounded however much the command printed. The tail is
 * copied forward in 1 MiB pieces (it only moves towards the start, so a piece never overwrites
 * what is still to be copied). Undefined when the file is within the limit.
 */
export function keepHeadAndTail(fd: number, size: number, keepBytes: number): KeptOutput | undefined {
  const headBytes = Math.floor(keepBytes / 2);
  const tailBytes = keepBytes - headBytes;
  const omitted = size - headBytes - tailBytes;
  const note = (tail: number): Buffer =>
    Buffer.from(`\n[armature: ${size - headBytes - tail} bytes of output were left out here; this file keeps the first ${headBytes} and the last ${tail} of the ${size} bytes the command wrote]\n`);
  // Barely over: the note would take more room than it saves (and would overlap the tail).
  if (omitted <= note(tailBytes).length) return undefined;
  const chunk = Buffer.alloc(Math.min(COPY_CHUNK, tailBytes));
  let from = size - tailBytes;
  let to = headBytes + note(tailBytes).length;
  try {
    while (from < size) {
      const n = readSync(fd, chunk, 0, Math.min(chunk.length, size - from), from);
      if (n <= 0) break;
      let done = 0;
      while (done < n) done += writeSync(fd, chunk, done, n - done, to + done);
      from += n;
      to += n;
    }
  } catch {
    // An I/O error halfway: the head stays, with a note that says so; no half-copied tail.
    const headOnly = note(0);
    ftruncateSync(fd, headBytes);
    writeSync(fd, headOnly, 0, headOnly.length, headBytes);
    return { totalBytes: size, headBytes, tailBytes: 0 };
  }
  // Last, in the part left out (the tail was read from beyond it): then it is true.
  const done = note(tailBytes);
  writeSync(fd, done, 0, done.length, headBytes);
  ftruncateSync(fd, to);
  return { totalBytes: size, headBytes, tailBytes };
}

/** The most a progress event carries; a command that writes faster is sampled, not queued. */
const MAX_PROGRESS_BYTES = 64 * 1024;

/**
 * Watches the output file while the command runs, through the descriptor it was opened with:
 * new bytes become progress chunks, and the size is checked against the output limit. Reads at
 * most 64 KB a tick. `finish` reads the rest, closes the descriptor and gives the final size.
 */
export class OutputFollower {
  private offset = 0;
  private timer: NodeJS.Timeout | undefined;
  private progressDecoder = new TextDecoder("utf-8");
  private closed = false;
  size = 0;

  constructor(
    private readonly fd: number,
    private readonly options: { intervalMs: number; maxBytes: number; onLimit: () => void; onChunk?: (text: string, totalBytes: number) => void; keepBytes?: number },
  ) {}

  /** Set by `finish` when the output was over `keepBytes` and the file was cut to its head and tail. */
  kept: KeptOutput | undefined;

  start(): void {
    this.timer = setInterval(() => this.poll(), this.options.intervalMs);
    this.timer.unref();
  }

  finish(): number {
    if (this.closed) return this.size;
    if (this.timer) clearInterval(this.timer);
    this.poll();
    this.closed = true;
    try {
      if (this.options.keepBytes !== undefined) this.kept = keepHeadAndTail(this.fd, this.size, this.options.keepBytes);
    } catch {
      // The note could not be written: the file stays as the command wrote it.
    }
    closeSync(this.fd);
    return this.size;
  }

  private poll(): void {
    if (this.closed) return;
    try {
      this.size = fstatSync(this.fd).size;
    } catch {
      return;
    }
    if (this.size > this.options.maxBytes) this.options.onLimit();
    if (!this.options.onChunk || this.size <= this.offset) return;
    let from = this.offset;
    if (this.size - from > MAX_PROGRESS_BYTES) {
      from = this.size - MAX_PROGRESS_BYTES;
      this.progressDecoder = new TextDecoder("utf-8");
    }
    const buf = Buffer.alloc(this.size - from);
    const n = readSync(this.fd, buf, 0, buf.length, from);
    this.offset = from + n;
    const text = this.progressDecoder.decode(buf.subarray(0, n), { stream: true });
    if (text) this.options.onChunk(text, this.size);
  }
}
