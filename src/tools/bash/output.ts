import { createWriteStream, type WriteStream } from "node:fs";
import { TextDecoder } from "node:util";

export type StreamName = "stdout" | "stderr";

/**
 * The first and the last bytes of a stream, in bounded memory: the head keeps the first `size`
 * bytes, the tail the last `size` bytes (plus at most one chunk while it rolls).
 */
export class ByteWindow {
  private head: Buffer[] = [];
  private headLen = 0;
  private tail: Buffer[] = [];
  private tailLen = 0;
  total = 0;

  constructor(private readonly size: number) {}

  push(chunk: Buffer): void {
    this.total += chunk.length;
    if (this.headLen < this.size) {
      const take = chunk.subarray(0, this.size - this.headLen);
      this.head.push(take);
      this.headLen += take.length;
    }
    this.tail.push(chunk);
    this.tailLen += chunk.length;
    while (this.tail.length > 1 && this.tailLen - this.tail[0]!.length >= this.size) {
      this.tailLen -= this.tail.shift()!.length;
    }
  }

  /** Everything, when it all fit in the head. */
  whole(): Buffer | undefined {
    return this.total <= this.size ? Buffer.concat(this.head) : undefined;
  }

  headBytes(): Buffer {
    return Buffer.concat(this.head);
  }

  tailBytes(): Buffer {
    const all = Buffer.concat(this.tail);
    return all.length > this.size ? all.subarray(all.length - this.size) : all;
  }
}

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
 * marker where the middle is left out. The marker names the file with the full output.
 */
export function inlineText(window: ByteWindow, maxChars: number, outputPath: string | undefined): InlineText {
  const whole = window.whole();
  return inlineFromParts(whole ?? window.headBytes(), whole ? undefined : window.tailBytes(), window.total, maxChars, outputPath);
}

/**
 * The same from the parts of a stream read elsewhere (a file): `tail` undefined when `head` is
 * the whole of it.
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

/** The largest stdout kept whole in memory to be shown as an image. */
export const MAX_IMAGE_BYTES = 20 * 1024 * 1024;

export interface CaptureOptions {
  /** The file every byte goes to, in arrival order (created at the first byte). */
  outputPath: string;
  /** Characters that may be shown inline (sizes the in-memory windows). */
  maxInlineChars: number;
  /** Called with decoded text as it arrives. */
  onChunk?: (stream: StreamName, text: string) => void;
}

/**
 * Where a command's output goes: every byte to the output file as it comes (stdout and stderr
 * interleaved as they arrive), and only bounded windows in memory. `write` returns false when
 * the file is behind; the caller pauses its sources until `onDrain`.
 */
export class OutputCapture {
  readonly combined: ByteWindow;
  readonly stdout: ByteWindow;
  readonly stderr: ByteWindow;
  /** stdout kept whole while it may be an image (starts with image magic bytes). */
  private imageBytes: Buffer[] | undefined = [];
  private imageLen = 0;
  private imageDecided = false;
  private file: WriteStream | undefined;
  private fileError: Error | undefined;
  private readonly decoders: Record<StreamName, TextDecoder> = {
    stdout: new TextDecoder("utf-8"),
    stderr: new TextDecoder("utf-8"),
  };

  constructor(private readonly options: CaptureOptions) {
    // 4 bytes a character at most: a stream that fits is never cut, one that does not is cut cleanly.
    const windowBytes = options.maxInlineChars * 4;
    this.combined = new ByteWindow(windowBytes);
    this.stdout = new ByteWindow(windowBytes);
    this.stderr = new ByteWindow(windowBytes);
  }

  get outputPath(): string {
    return this.options.outputPath;
  }

  get totalBytes(): number {
    return this.combined.total;
  }

  /** Whether any byte was written (the output file exists). */
  get wroteFile(): boolean {
    return this.file !== undefined;
  }

  write(stream: StreamName, chunk: Buffer): boolean {
    this.combined.push(chunk);
    this[stream].push(chunk);
    if (stream === "stdout") this.keepForImage(chunk);
    if (this.options.onChunk) this.options.onChunk(stream, this.decoders[stream].decode(chunk, { stream: true }));
    if (this.fileError) return true;
    this.file ??= this.openFile();
    return this.file.write(chunk);
  }

  onDrain(callback: () => void): void {
    if (!this.file || this.fileError) callback();
    else this.file.once("drain", callback);
  }

  /** stdout as bytes when it is small enough to be an image and started like one. */
  imageCandidate(): Buffer | undefined {
    return this.imageBytes && this.imageLen > 0 ? Buffer.concat(this.imageBytes) : undefined;
  }

  /** Flushes and closes the file; resolves to the write error, if any. */
  async close(): Promise<Error | undefined> {
    const file = this.file;
    if (file && !file.closed) {
      await new Promise<void>((resolve) => {
        file.end(() => resolve());
        file.once("error", () => resolve());
      });
    }
    return this.fileError;
  }

  private openFile(): WriteStream {
    const file = createWriteStream(this.options.outputPath, { flags: "w", mode: 0o600 });
    file.on("error", (err) => {
      this.fileError = err;
      file.emit("drain");
    });
    return file;
  }

  private keepForImage(chunk: Buffer): void {
    if (!this.imageBytes) return;
    this.imageBytes.push(chunk);
    this.imageLen += chunk.length;
    if (this.imageLen > MAX_IMAGE_BYTES) {
      this.imageBytes = undefined;
      return;
    }
    // Decide once, as soon as there are enough bytes to recognise a format.
    if (!this.imageDecided && this.imageLen >= 12) {
      this.imageDecided = true;
      if (!looksLikeImageStart(Buffer.concat(this.imageBytes).subarray(0, 32))) this.imageBytes = undefined;
    }
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
