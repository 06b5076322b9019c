// The journal of a write in place (a file with hard links keeps its inode, so it is rewritten,
// not replaced): before a byte of the target changes, the new content and the old are written
// beside it, fsynced, and the journal is committed by a rename. A write that fails then puts the
// old bytes back itself; one whose process was killed in the middle leaves the journal, and the
// next sweep of the folder (temp-name.ts: the first write of a process there, `armature gc`)
// puts the old content back from it, if the file still holds only bytes of the old content or
// the new. Layout: a header line, a JSON line, the new bytes, the old bytes.
import { constants, unlinkSync, type Stats } from "node:fs";
import { open, readFile, rename, unlink, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { undoAtExit } from "./exit-cleanup.js";
import type { HeldDir } from "./held-dir.js";
import { readExactly, writeFully } from "./write-fully.js";

export const JOURNAL_SUFFIX = ".armature-copy";
const TEMP_SUFFIX = ".armature-tmp";
const MAGIC = "armature copy journal 1\n";

interface JournalHeader {
  /** The target's name in the folder. */
  name: string;
  dev: number;
  ino: number;
  oldSize: number;
  newSize: number;
}

export interface CopyJournal {
  /** The journal's real path (for messages). */
  readonly path: string;
  /** Removes the journal: the write is over, either way. */
  remove(): Promise<void>;
}

/**
 * Writes and commits the journal of a write in place of `name` (whose identity is `target`).
 * `tempName` is a fresh temp name (tempNameFor): the journal is written under it and renamed to
 * the same name with the journal suffix once it is whole. A failure (a full disk, a quota, a
 * size limit) removes it and throws: the target has not been touched.
 */
export async function writeCopyJournal(dir: HeldDir, name: string, tempName: string, target: Stats, newBytes: Uint8Array, oldBytes: Uint8Array): Promise<CopyJournal> {
  const journalName = `${tempName.slice(0, -TEMP_SUFFIX.length)}${JOURNAL_SUFFIX}`;
  const header: JournalHeader = { name, dev: target.dev, ino: target.ino, oldSize: oldBytes.length, newSize: newBytes.length };
  const head = Buffer.from(`${MAGIC}${JSON.stringify(header)}\n`, "utf8");
  let current = tempName;
  const forget = undoAtExit(() => unlinkSyncQuiet(join(dir.path, current)));
  let committed = false;
  try {
    const handle = await open(dir.at(tempName), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      await writeFully(handle, head, 0);
      await writeFully(handle, newBytes, head.length);
      await writeFully(handle, oldBytes, head.length + newBytes.length);
      await handle.sync();
      const { size } = await handle.stat();
      const expected = head.length + newBytes.length + oldBytes.length;
      if (size !== expected) throw ioError(`the journal holds ${size} of ${expected} bytes`);
    } finally {
      await handle.close();
    }
    await rename(dir.at(tempName), dir.at(journalName));
    current = journalName;
    await dir.sync();
    committed = true;
  } finally {
    if (!committed) {
      forget();
      await unlink(dir.at(current)).catch(() => undefined);
    }
  }
  return {
    path: join(dir.path, journalName),
    async remove() {
      forget();
      await unlink(dir.at(journalName)).catch(() => undefined);
    },
  };
}

/** Whether `name` is a journal's name (its owner's pid as in temp-name.ts). */
export function isJournalName(name: string): boolean {
  return name.endsWith(JOURNAL_SUFFIX);
}

/**
 * Puts right what a killed writer left, from its journal `journalName` in a folder (`within`
 * maps a name to its path there), then removes the journal. The target gets its old content back
 * when it holds a mix of the old and the new; it is left alone when it is whole (old or new), and
 * when anything else changed it since (another inode at the name, another size, a byte that is
 * neither the old one nor the new). Resolves to whether the old content was put back.
 */
export async function recoverCopyJournal(within: (name: string) => string, journalName: string): Promise<boolean> {
  const journalPath = within(journalName);
  let outcome: "restored" | "nothing to do";
  try {
    outcome = await putBack(within, await readFile(journalPath));
  } catch {
    return false; // an I/O error: the journal stays for the next sweep
  }
  await unlink(journalPath).catch(() => undefined);
  return outcome === "restored";
}

async function putBack(within: (name: string) => string, data: Buffer): Promise<"restored" | "nothing to do"> {
  const parsed = parseJournal(data);
  if (parsed === undefined) return "nothing to do";
  const { header, newBytes, oldBytes } = parsed;
  let handle: FileHandle;
  try {
    handle = await open(within(header.name), constants.O_RDWR | constants.O_NOFOLLOW);
  } catch {
    return "nothing to do"; // gone, or replaced by a symlink: nothing of ours to put right
  }
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.dev !== header.dev || info.ino !== header.ino) return "nothing to do";
    if (info.size < Math.min(header.oldSize, header.newSize) || info.size > Math.max(header.oldSize, header.newSize)) return "nothing to do";
    const now = await readExactly(handle, info.size);
    if (now.equals(oldBytes) || now.equals(newBytes) || !onlyOldOrNew(now, oldBytes, newBytes)) return "nothing to do";
    await writeFully(handle, oldBytes, 0);
    await handle.truncate(oldBytes.length);
    await handle.sync();
    return "restored";
  } finally {
    await handle.close();
  }
}

function parseJournal(data: Buffer): { header: JournalHeader; newBytes: Buffer; oldBytes: Buffer } | undefined {
  if (!data.subarray(0, MAGIC.length).equals(Buffer.from(MAGIC))) return undefined;
  const end = data.indexOf(0x0a, MAGIC.length);
  if (end < 0) return undefined;
  let header: JournalHeader;
  try {
    header = JSON.parse(data.subarray(MAGIC.length, end).toString("utf8")) as JournalHeader;
  } catch {
    return undefined;
  }
  const { name, dev, ino, oldSize, newSize } = header;
  if (typeof name !== "string" || name.includes("/") || name === "" || ![dev, ino, oldSize, newSize].every((n) => Number.isSafeInteger(n) && n >= 0)) return undefined;
  const start = end + 1;
  if (data.length !== start + newSize + oldSize) return undefined;
  return { header, newBytes: data.subarray(start, start + newSize), oldBytes: data.subarray(start + newSize) };
}

/** Every byte is the old content's at its offset, or the new content's. */
function onlyOldOrNew(now: Buffer, oldBytes: Buffer, newBytes: Buffer): boolean {
  for (let i = 0; i < now.length; i++) {
    const b = now[i];
    if (!((i < oldBytes.length && oldBytes[i] === b) || (i < newBytes.length && newBytes[i] === b))) return false;
  }
  return true;
}

function unlinkSyncQuiet(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // gone already
  }
}

function ioError(message: string): NodeJS.ErrnoException {
  const err = new Error(message) as NodeJS.ErrnoException;
  err.code = "EIO";
  return err;
}
