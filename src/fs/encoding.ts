import { isUtf8 } from "node:buffer";

export type TextEncodingName = "utf8" | "utf16le" | "utf16be" | "latin1";

/** How a text file is stored, so that a rewrite stores it the same way. */
export interface TextFormat {
  encoding: TextEncodingName;
  bom: boolean;
}

export type LineEnding = "\n" | "\r\n";

const BOM_BYTES: Record<Exclude<TextEncodingName, "latin1">, readonly number[]> = {
  utf8: [0xef, 0xbb, 0xbf],
  utf16le: [0xff, 0xfe],
  utf16be: [0xfe, 0xff],
};

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return bytes.length >= prefix.length && prefix.every((b, i) => bytes[i] === b);
}

/**
 * The encoding of `bytes`: a BOM decides; otherwise valid UTF-8 is UTF-8 and anything else is
 * Latin-1 (every byte sequence is valid Latin-1). When `bytes` is only the start of a file,
 * pass `complete: false` so that a multi-byte character cut at the end does not count as invalid.
 */
export function detectEncoding(bytes: Uint8Array, complete = true): TextFormat {
  if (startsWith(bytes, BOM_BYTES.utf8)) return { encoding: "utf8", bom: true };
  if (startsWith(bytes, BOM_BYTES.utf16le)) return { encoding: "utf16le", bom: true };
  if (startsWith(bytes, BOM_BYTES.utf16be)) return { encoding: "utf16be", bom: true };
  if (isUtf8(bytes)) return { encoding: "utf8", bom: false };
  if (!complete) {
    for (let cut = 1; cut <= 3 && cut < bytes.length; cut++) {
      if (isUtf8(bytes.subarray(0, bytes.length - cut))) return { encoding: "utf8", bom: false };
    }
  }
  return { encoding: "latin1", bom: false };
}

export function bomLength(format: TextFormat): number {
  if (!format.bom) return 0;
  return format.encoding === "utf8" ? 3 : 2;
}

/** Text of a whole file, without its BOM, and the format it was stored in. */
export function decodeText(bytes: Buffer): { text: string; format: TextFormat } {
  const format = detectEncoding(bytes);
  return { text: decodeWith(bytes.subarray(bomLength(format)), format.encoding), format };
}

export function decodeWith(bytes: Buffer, encoding: TextEncodingName): string {
  switch (encoding) {
    case "utf8":
    case "latin1":
    case "utf16le":
      return bytes.toString(encoding);
    case "utf16be":
      return new TextDecoder("utf-16be").decode(bytes);
  }
}

/** Whether `text` can be stored in `format` without loss. */
export function canEncode(text: string, format: TextFormat): boolean {
  return format.encoding !== "latin1" || !/[^\x00-\xff]/.test(text);
}

/** Bytes of `text` in `format`, BOM included. Callers check `canEncode` first for Latin-1. */
export function encodeText(text: string, format: TextFormat): Buffer {
  const bom = format.bom && format.encoding !== "latin1" ? Buffer.from(BOM_BYTES[format.encoding]) : undefined;
  let body: Buffer;
  if (format.encoding === "utf16be") body = Buffer.from(text, "utf16le").swap16();
  else body = Buffer.from(text, format.encoding);
  return bom ? Buffer.concat([bom, body]) : body;
}

/**
 * The same bytes as `encodeText`, a slice at a time, so that a large file is never held twice
 * in memory (as a string and as one buffer). Slices never split a surrogate pair.
 */
export function* encodeTextChunks(text: string, format: TextFormat, chunkChars = 1 << 20): Generator<Buffer> {
  if (format.bom && format.encoding !== "latin1") yield Buffer.from(BOM_BYTES[format.encoding]);
  for (let start = 0; start < text.length; ) {
    let end = Math.min(start + chunkChars, text.length);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    yield encodeText(text.slice(start, end), { encoding: format.encoding, bom: false });
    start = end;
  }
}

export const UTF8: TextFormat = { encoding: "utf8", bom: false };

/** The file's own line ending: CRLF when most line breaks are CRLF. */
export function detectLineEnding(text: string): LineEnding {
  let crlf = 0;
  let lf = 0;
  let i = text.indexOf("\n");
  while (i !== -1) {
    if (i > 0 && text.charCodeAt(i - 1) === 13) crlf++;
    else lf++;
    i = text.indexOf("\n", i + 1);
  }
  return crlf > lf ? "\r\n" : "\n";
}

/** Every line break (LF or CRLF) as CRLF. */
export function toCrlf(text: string): string {
  return text.replace(/\r?\n/g, "\r\n");
}

/**
 * A cheap look at the first bytes: NUL bytes (outside UTF-16) or many control characters mean
 * a binary file, which Read refuses instead of dumping.
 */
export function looksBinary(sample: Uint8Array, format: TextFormat): boolean {
  if (format.encoding === "utf16le" || format.encoding === "utf16be") return false;
  if (sample.length === 0) return false;
  let control = 0;
  for (const byte of sample) {
    if (byte === 0) return true;
    // Tab, LF, VT, FF, CR, ESC and backspace appear in text files.
    if (byte < 32 && byte !== 9 && byte !== 10 && byte !== 11 && byte !== 12 && byte !== 13 && byte !== 27 && byte !== 8) control++;
  }
  return control / sample.length > 0.1;
}
