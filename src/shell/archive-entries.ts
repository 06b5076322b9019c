// The names an archive holds, read in-process at decision time: tar (ustar, pax, GNU long names;
// plain or gzip) and zip (central directory). What an extractor will write is judged by these
// names, not by the command line, which does not show them. Bounded: past the bounds, or for a
// format read here only in part (bzip2, xz, zstd, zip64…), the contents are "not known".
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { gunzipSync, inflateRawSync } from "node:zlib";
import { LINK_WALK_MAX_ENTRIES } from "../fs/path-identity.js";

/** One name an extraction creates, and for a link, what it points to. */
export interface ArchiveEntry {
  name: string;
  /** A symlink's text (relative to the entry's directory) or a hard link's archive member name. */
  link?: { target: string; hard: boolean };
}

export type ArchiveListing = { entries: ArchiveEntry[] } | { unknown: string };

/** The most entries judged for one archive (the tree walk's bound). */
export const ARCHIVE_MAX_ENTRIES = LINK_WALK_MAX_ENTRIES;
/** The most bytes a compressed tar is inflated to, and the most a zip's central directory may take. */
export const ARCHIVE_MAX_BYTES = 256 * 1024 * 1024;
const ZIP_MAX_DIRECTORY = 16 * 1024 * 1024;

const MAGIC: ReadonlyArray<[string, number[]]> = [
  ["bzip2", [0x42, 0x5a, 0x68]],
  ["xz", [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]],
  ["zstd", [0x28, 0xb5, 0x2f, 0xfd]],
  ["lzip", [0x4c, 0x5a, 0x49, 0x50]],
  ["compress (.Z)", [0x1f, 0x9d]],
  ["lz4", [0x04, 0x22, 0x4d, 0x18]],
  ["lzma", [0x5d, 0x00, 0x00]],
];

/**
 * Opens a regular file for reading, or says why not: a FIFO, a device or `/dev/stdin` would
 * block the decision or read what the command itself will read (opened non-blocking, checked
 * after opening, so a file swapped for a FIFO in between is caught too).
 */
export function openRegular(path: string): { fd: number; size: number } | { error: string } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    return { error: `${path} cannot be read (${(e as NodeJS.ErrnoException).code ?? "error"})` };
  }
  const stat = fstatSync(fd);
  if (!stat.isFile()) {
    closeSync(fd);
    return { error: `${path} is not a regular file` };
  }
  return { fd, size: stat.size };
}

function readAt(fd: number, position: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, buf, got, length - got, position + got);
    if (n === 0) break;
    got += n;
  }
  return got === length ? buf : buf.subarray(0, got);
}

/** A source of bytes by position: a file read in place, or a buffer (an inflated gzip stream). */
interface Bytes {
  size: number;
  at(position: number, length: number): Buffer;
}

/** Reads a file through a 1 MiB window: headers are small and mostly close together. */
function windowed(fd: number, size: number): Bytes {
  const WINDOW = 1024 * 1024;
  let start = 0;
  let window: Buffer = Buffer.alloc(0);
  return {
    size,
    at(position, length) {
      if (length > WINDOW) return readAt(fd, position, length);
      if (position < start || position + length > start + window.length) {
        start = position;
        window = readAt(fd, position, Math.min(WINDOW, size - position));
      }
      return window.subarray(position - start, position - start + length);
    },
  };
}

/** The entries of a tar archive at `path` (GNU tar detects the compression by its first bytes). */
export function tarEntries(path: string, ignoreZeros: boolean): ArchiveListing {
  const opened = openRegular(path);
  if ("error" in opened) return { unknown: `${opened.error}, so what it holds is not known before the command runs` };
  const { fd, size } = opened;
  try {
    const head = readAt(fd, 0, 6);
    if (head[0] === 0x1f && head[1] === 0x8b) {
      let inflated: Buffer;
      try {
        if (size > ARCHIVE_MAX_BYTES) return { unknown: `${path} is larger than ${ARCHIVE_MAX_BYTES} bytes, too large to read its names before it runs` };
        inflated = gunzipSync(readAt(fd, 0, size), { maxOutputLength: ARCHIVE_MAX_BYTES });
      } catch (e) {
        const why = e instanceof RangeError ? `it inflates to more than ${ARCHIVE_MAX_BYTES} bytes` : "its gzip stream does not inflate";
        return { unknown: `${path}: ${why}, so what it holds is not known` };
      }
      return tarListing(path, { size: inflated.length, at: (p, n) => inflated.subarray(p, p + n) }, ignoreZeros);
    }
    for (const [format, magic] of MAGIC) {
      if (magic.every((b, i) => head[i] === b)) {
        return { unknown: `${path} is ${format}-compressed, which is not read before the command runs, so what it holds is not known` };
      }
    }
    return tarListing(path, windowed(fd, size), ignoreZeros);
  } finally {
    closeSync(fd);
  }
}

function field(block: Buffer, start: number, length: number): string {
  const raw = block.subarray(start, start + length);
  const end = raw.indexOf(0);
  return raw.subarray(0, end === -1 ? length : end).toString("utf8");
}

function numeric(block: Buffer, start: number, length: number): number | null {
  const raw = block.subarray(start, start + length);
  if ((raw[0]! & 0x80) !== 0) {
    // GNU base-256: big-endian, the top bit of the first byte marks it.
    let n = raw[0]! & 0x7f;
    for (let i = 1; i < length; i++) n = n * 256 + raw[i]!;
    return Number.isSafeInteger(n) ? n : null;
  }
  // Octal digits, padded with spaces and ended by NUL or space.
  let n = 0;
  let digits = 0;
  let i = 0;
  while (i < length && raw[i] === 0x20) i++;
  for (; i < length; i++) {
    const c = raw[i]!;
    if (c >= 0x30 && c <= 0x37) {
      n = n * 8 + (c - 0x30);
      digits++;
    } else if (c === 0 || c === 0x20) break;
    else return null;
  }
  for (; i < length; i++) if (raw[i] !== 0 && raw[i] !== 0x20) return null;
  return digits === 0 ? 0 : n;
}

/** The header's sums (its checksum field read as spaces), unsigned and signed; 0 for a zero block. */
function sums(block: Buffer): { unsigned: number; signed: number; zero: boolean } {
  let unsigned = 0;
  let high = 0;
  let raw = 0;
  for (let i = 0; i < 512; i++) {
    const b = block[i]!;
    raw += b;
    const v = i >= 148 && i < 156 ? 0x20 : b;
    unsigned += v;
    if (v > 127) high++;
  }
  return { unsigned, signed: unsigned - 256 * high, zero: raw === 0 };
}

function checksumOk(block: Buffer, s: { unsigned: number; signed: number }): boolean {
  const stored = numeric(block, 148, 8);
  return stored === s.unsigned || stored === s.signed;
}

/** pax records: `LEN key=value\n`. */
function paxRecords(data: Buffer): Map<string, string> | null {
  const out = new Map<string, string>();
  let pos = 0;
  while (pos < data.length) {
    const space = data.indexOf(0x20, pos);
    if (space === -1) return data.subarray(pos).every((b) => b === 0) ? out : null;
    const len = Number(data.subarray(pos, space).toString("latin1"));
    if (!Number.isInteger(len) || len <= space - pos || pos + len > data.length) return null;
    const record = data.subarray(space + 1, pos + len - 1).toString("utf8");
    const eq = record.indexOf("=");
    if (eq === -1) return null;
    out.set(record.slice(0, eq), record.slice(eq + 1));
    pos += len;
  }
  return out;
}

function tarListing(path: string, bytes: Bytes, ignoreZeros: boolean): ArchiveListing {
  const entries: ArchiveEntry[] = [];
  const unknown = (why: string): ArchiveListing => ({ unknown: `${path}: ${why}, so what it holds is not known before the command runs` });
  let longName: string | undefined;
  let longLink: string | undefined;
  let pax = new Map<string, string>();
  let pos = 0;
  while (pos + 512 <= bytes.size) {
    const block = bytes.at(pos, 512);
    pos += 512;
    if (block.length < 512) break;
    const sum = sums(block);
    if (sum.zero) {
      if (ignoreZeros) continue;
      return { entries };
    }
    if (!checksumOk(block, sum)) return unknown(`the header at byte ${pos - 512} is not a valid tar header (tar skips to the next one it finds)`);
    const size = numeric(block, 124, 12);
    if (size === null) return unknown(`the header at byte ${pos - 512} has an unreadable size`);
    const type = String.fromCharCode(block[156]!);
    const dataAt = pos;
    pos += Math.ceil(size / 512) * 512;
    if (type === "L" || type === "K" || type === "x" || type === "g") {
      if (size > 1024 * 1024) return unknown("a long-name or pax header is larger than 1 MiB");
      const data = bytes.at(dataAt, size);
      if (type === "L") longName = data.toString("utf8").replace(/\0.*$/s, "");
      else if (type === "K") longLink = data.toString("utf8").replace(/\0.*$/s, "");
      else {
        const records = paxRecords(data);
        if (!records) return unknown("a pax header does not parse");
        // A global header's path applies to the entries after it: judged as names too.
        if (type === "x") pax = records;
        else for (const key of ["path", "linkpath"]) if (records.has(key)) entries.push({ name: records.get(key)! });
      }
      continue;
    }
    if (type === "N" || type === "M" || type === "V") {
      if (type === "V") continue; // a volume label writes nothing
      return unknown(`it holds an old GNU ${type === "N" ? "long-name" : "multi-volume"} entry`);
    }
    const magic = block.subarray(257, 263).toString("latin1");
    const prefix = magic === "ustar\0" ? field(block, 345, 155) : "";
    const plain = field(block, 0, 100);
    const name = pax.get("path") ?? longName ?? (prefix ? `${prefix}/${plain}` : plain);
    const linkText = pax.get("linkpath") ?? longLink ?? field(block, 157, 100);
    const sparseName = pax.get("GNU.sparse.name");
    if (sparseName !== undefined) entries.push({ name: sparseName });
    entries.push(type === "1" || type === "2" ? { name, link: { target: linkText, hard: type === "1" } } : { name });
    longName = longLink = undefined;
    pax = new Map();
    if (entries.length > ARCHIVE_MAX_ENTRIES) return unknown(`it holds more than ${ARCHIVE_MAX_ENTRIES} entries`);
  }
  return pos === 0 ? unknown("it is empty or not a tar archive") : { entries };
}

/** The entries of a zip archive's central directory (what unzip extracts), with its symlinks. */
export function zipEntries(path: string): ArchiveListing {
  const opened = openRegular(path);
  if ("error" in opened) return { unknown: `${opened.error}, so what it holds is not known before the command runs` };
  const { fd, size } = opened;
  const unknown = (why: string): ArchiveListing => ({ unknown: `${path}: ${why}, so what it holds is not known before the command runs` });
  try {
    const tailLength = Math.min(size, 22 + 0xffff);
    const tail = readAt(fd, size - tailLength, tailLength);
    let eocd = -1;
    for (let i = tail.length - 22; i >= 0; i--) {
      if (tail.readUInt32LE(i) === 0x06054b50) {
        eocd = i;
        break;
      }
    }
    if (eocd === -1) return unknown("no zip end-of-central-directory record was found");
    const count = tail.readUInt16LE(eocd + 10);
    const dirSize = tail.readUInt32LE(eocd + 12);
    const dirOffset = tail.readUInt32LE(eocd + 16);
    if (count === 0xffff || dirSize === 0xffffffff || dirOffset === 0xffffffff) return unknown("it is a zip64 archive, which is not read here");
    if (count > ARCHIVE_MAX_ENTRIES) return unknown(`it holds more than ${ARCHIVE_MAX_ENTRIES} entries`);
    if (dirSize > ZIP_MAX_DIRECTORY || dirOffset + dirSize > size) return unknown("its central directory is out of bounds");
    // Data prepended to the archive (a self-extractor) shifts every offset: unzip corrects for it.
    const shift = size - tailLength + eocd - dirSize - dirOffset;
    if (shift < 0) return unknown("its central directory is out of bounds");
    const dir = readAt(fd, dirOffset + shift, dirSize);
    const entries: ArchiveEntry[] = [];
    let p = 0;
    for (let k = 0; k < count; k++) {
      if (p + 46 > dir.length || dir.readUInt32LE(p) !== 0x02014b50) return unknown("its central directory does not parse");
      const host = dir[p + 5]!;
      const flags = dir.readUInt16LE(p + 8);
      const method = dir.readUInt16LE(p + 10);
      const compressed = dir.readUInt32LE(p + 20);
      const nameLength = dir.readUInt16LE(p + 28);
      const extraLength = dir.readUInt16LE(p + 30);
      const commentLength = dir.readUInt16LE(p + 32);
      const mode = dir.readUInt32LE(p + 38) >>> 16;
      const local = dir.readUInt32LE(p + 42);
      const name = dir.subarray(p + 46, p + 46 + nameLength).toString((flags & 0x800) !== 0 ? "utf8" : "latin1");
      p += 46 + nameLength + extraLength + commentLength;
      if (host === 3 && (mode & 0o170000) === 0o120000) {
        // A symlink: its target is the entry's data.
        const target = zipData(fd, local + shift, method, compressed);
        if (target === null) return unknown(`the symlink ${name} cannot be read`);
        entries.push({ name, link: { target, hard: false } });
      } else entries.push({ name });
    }
    return { entries };
  } finally {
    closeSync(fd);
  }
}

function zipData(fd: number, local: number, method: number, compressed: number): string | null {
  if (compressed > 64 * 1024) return null;
  const header = readAt(fd, local, 30);
  if (header.length < 30 || header.readUInt32LE(0) !== 0x04034b50) return null;
  const data = readAt(fd, local + 30 + header.readUInt16LE(26) + header.readUInt16LE(28), compressed);
  try {
    if (method === 0) return data.toString("utf8");
    if (method === 8) return inflateRawSync(data, { maxOutputLength: 64 * 1024 }).toString("utf8");
  } catch {
    return null;
  }
  return null;
}
