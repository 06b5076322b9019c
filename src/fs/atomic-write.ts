import { constants, fsyncSync, ftruncateSync, unlinkSync, writeSync, type Stats } from "node:fs";
import { access, lstat, mkdir, open, readlink, realpath, rename, unlink, type FileHandle } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { writeCopyJournal, type CopyJournal } from "./copy-journal.js";
import { describeErrno, errnoCode } from "./errno.js";
import { undoAtExit } from "./exit-cleanup.js";
import { DirMovedError, holdDir, type HeldDir } from "./held-dir.js";
import { sweepOnce, tempNameFor } from "./temp-name.js";
import { isFileSystemError, WriteFailedError } from "./write-failure.js";
import { readExactly, writeFully } from "./write-fully.js";

/** Points where a test (or a host) can step into an atomic write. */
export interface AtomicWriteHooks {
  /**
   * After the new content is safe on disk, just before it replaces the target (by rename, or in
   * place for a file with hard links: then `tempPath` is the journal holding it, see
   * copy-journal.ts, or the target itself where none could be made). A throw aborts the write
   * with the target untouched.
   */
  beforeRename?(tempPath: string, targetPath: string): void | Promise<void>;
  /**
   * A file rewritten in place (it has hard links): after each stretch of the new content is in
   * the target, `written` bytes so far. A throw fails the write, and the old content is put back.
   */
  duringCopyBack?(targetPath: string, written: number): void | Promise<void>;
}

export interface AtomicWriteOptions {
  /** Create missing parent folders (for new files). */
  createParents?: boolean;
  hooks?: AtomicWriteHooks;
  /**
   * Where the path led when the write was judged (its canonical name, see judged-target.ts).
   * When it leads elsewhere now (a symlink was created or swapped since), nothing is written.
   */
  expectTarget?: string;
  /**
   * Follow a symlink at the path (default true: writing through a link updates its target).
   * false: the name itself is the target, and a symlink there is replaced, never followed
   * (armature's own files in its session folders).
   */
  followLinks?: boolean;
  /** Permission bits of a new file (default 0666 less the umask); an existing file keeps its own. */
  newFileMode?: number;
}

/** The path led somewhere else at write time than when the call was judged: nothing was written. */
export class WriteTargetChangedError extends Error {
  constructor(path: string, detail: string) {
    super(`${path} was not written: ${detail}. A symlink on the way changed after the call was checked; look at the path (ls -l) and try again.`);
    this.name = "WriteTargetChangedError";
  }
}

/** The file has no write permission for anyone: armature does not replace it behind its mode. */
export class ReadOnlyFileError extends Error {
  constructor(path: string, mode: number) {
    super(
      `${path} is read-only (mode ${(mode & 0o7777).toString(8).padStart(4, "0")}), so it was not changed. ` +
        `If it should change, make it writable first (chmod u+w), then write again.`,
    );
    this.name = "ReadOnlyFileError";
  }
}

async function realDirOrSelf(dir: string): Promise<string> {
  try {
    return await realpath(dir);
  } catch {
    return dir;
  }
}

/**
 * The file a write really lands on: symlinks are followed, so that writing through a link
 * updates its target instead of replacing the link with a regular file.
 */
async function writeTarget(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  // A dangling link: write where it points.
  try {
    const info = await lstat(path);
    if (info.isSymbolicLink()) return resolve(dirname(path), await readlink(path));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  return path;
}

function chunksOf(data: Uint8Array | Iterable<Uint8Array>): Iterable<Uint8Array> {
  return data instanceof Uint8Array ? [data] : data;
}

/**
 * Replaces (or creates) `path` with `data` so that a reader sees the old content or the new,
 * never a mix, and a failure at any point leaves the old file as it was: a temp file in the
 * same folder, every byte count checked, fsync, then rename over the target. The folder is
 * opened once and everything after goes through that handle (see held-dir.ts), so neither a
 * symlink at the name nor a swapped folder can redirect the write. The file keeps what it is:
 * its mode and owner are copied to the new file; a file with hard links, or one whose owner
 * this process cannot give to a new file, is written in place instead (see writeInPlace); a
 * file nobody may write (0444) is refused. A refusal of the file system is a WriteFailedError
 * naming the cause (ENOSPC, EDQUOT…). `data` may be a sequence of chunks, written in order.
 */
export async function atomicWriteFile(path: string, data: Uint8Array | Iterable<Uint8Array>, options: AtomicWriteOptions = {}): Promise<void> {
  try {
    await writeAtomically(path, data, options);
  } catch (err) {
    throw isFileSystemError(err) ? new WriteFailedError(path, err) : err;
  }
}

async function writeAtomically(path: string, data: Uint8Array | Iterable<Uint8Array>, options: AtomicWriteOptions): Promise<void> {
  const follow = options.followLinks !== false;
  const resolved = follow ? await writeTarget(path) : resolve(path);
  if (options.createParents) await mkdir(dirname(resolved), { recursive: true });
  // The directory by its real name, and the file in it: resolved once, then held open.
  const dirPath = await realDirOrSelf(dirname(resolved));
  const name = basename(resolved);
  const target = join(dirPath, name);
  if (options.expectTarget !== undefined && target !== options.expectTarget) {
    throw new WriteTargetChangedError(path, `it now leads to ${target}, not to ${options.expectTarget} as when it was checked`);
  }
  let dir: HeldDir;
  try {
    dir = await holdDir(dirPath);
  } catch (err) {
    if (err instanceof DirMovedError) throw new WriteTargetChangedError(path, `${err.message} (it changed just before the write)`);
    throw err;
  }
  try {
    await sweepOnce(dirPath, dir.at);
    let existing: Stats | undefined = await lstat(dir.at(name)).catch((err: NodeJS.ErrnoException) => {
      if (err.code === "ENOENT") return undefined;
      throw err;
    });
    if (existing?.isSymbolicLink()) {
      if (follow) throw new WriteTargetChangedError(path, `${target} became a symlink while it was written`);
      existing = undefined; // our own file's name: the rename replaces the link itself
    }
    if (existing !== undefined && !existing.isFile()) throw new Error(`${target} is not a regular file, so it was not changed.`);
    if (existing !== undefined) {
      if ((existing.mode & 0o222) === 0) throw new ReadOnlyFileError(path, existing.mode);
      await access(dir.at(name), constants.W_OK);
    }
    const job: WriteJob = { path, target, name, dir, data, hooks: options.hooks, follow, newFileMode: options.newFileMode };
    if (existing !== undefined && existing.nlink > 1) return await writeInPlace(job, existing);
    const replaced = await replaceByRename(job, existing);
    if (!replaced && existing !== undefined) await writeInPlace(job, existing);
  } finally {
    await dir.close();
  }
}

interface WriteJob {
  path: string;
  /** The real path of the file written. */
  target: string;
  name: string;
  dir: HeldDir;
  data: Uint8Array | Iterable<Uint8Array>;
  hooks: AtomicWriteHooks | undefined;
  follow: boolean;
  newFileMode: number | undefined;
}

const NOT_MINE = new Set(["EPERM", "EACCES"]);

/**
 * The new content in a temp file beside the target, then rename(2) over it. Resolves to false,
 * before any byte is written, when the new file could not be made the existing one's twin (its
 * owner cannot be given away, or the folder is not writable though the file is): the caller
 * then writes in place.
 */
async function replaceByRename(job: WriteJob, existing: Stats | undefined): Promise<boolean> {
  const { dir, name, target } = job;
  const tempName = tempNameFor(name);
  let handle: FileHandle;
  try {
    // O_EXCL|O_NOFOLLOW: a name planted where the temp file goes is an error, never followed.
    handle = await open(dir.at(tempName), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, existing ? 0o600 : 0o666);
  } catch (err) {
    if (existing !== undefined && NOT_MINE.has((err as NodeJS.ErrnoException).code ?? "")) return false;
    throw err;
  }
  let renamed = false;
  // An exit in the middle (a signal handler's process.exit) removes the temp file too.
  const forget = undoAtExit(() => unlinkSync(join(dir.path, tempName)));
  try {
    let ino: number;
    try {
      if (existing !== undefined) {
        const mine = await handle.stat();
        if (mine.uid !== existing.uid || mine.gid !== existing.gid) {
          try {
            await handle.chown(existing.uid, existing.gid);
          } catch (err) {
            if (NOT_MINE.has((err as NodeJS.ErrnoException).code ?? "")) return false;
            throw err;
          }
        }
        // After chown, which clears set-id bits.
        await handle.chmod(existing.mode & 0o7777);
      } else if (job.newFileMode !== undefined) await handle.chmod(job.newFileMode);
      let total = 0;
      for (const chunk of chunksOf(job.data)) {
        await writeFully(handle, chunk, total);
        total += chunk.length;
      }
      await handle.sync();
      const written = await handle.stat();
      if (written.size !== total) throw shortWrite(total, written.size);
      ino = written.ino;
    } finally {
      await handle.close();
    }
    await job.hooks?.beforeRename?.(join(dir.path, tempName), target);
    await verifyBeforeReplace(job);
    // rename(2) replaces the last component itself (a symlink there is replaced, not followed).
    await rename(dir.at(tempName), dir.at(name));
    renamed = true;
    const landed = await lstat(dir.at(name)).catch(() => undefined);
    const now = await dir.whereNow();
    if (landed?.ino !== ino || now !== dir.path) {
      throw new WriteTargetChangedError(job.path, `${dir.path} was moved or replaced while it was written; the new content is in ${now ?? "a removed folder"}`);
    }
  } finally {
    if (!renamed) await unlink(dir.at(tempName)).catch(() => undefined);
    forget();
  }
  await dir.sync();
  return true;
}

function shortWrite(expected: number, got: number): NodeJS.ErrnoException {
  const err = new Error(`the temp file holds ${got} of ${expected} bytes`) as NodeJS.ErrnoException;
  err.code = "EIO";
  return err;
}

/**
 * The last look before the target is replaced: it is not (now) a symlink, and the held
 * directory is still where it was (checked again after the rename as well).
 */
async function verifyBeforeReplace(job: WriteJob): Promise<void> {
  const { dir, name, target } = job;
  const info = await lstat(dir.at(name)).catch(() => undefined);
  if (job.follow && info?.isSymbolicLink()) throw new WriteTargetChangedError(job.path, `${target} became a symlink while it was written`);
  if ((await dir.whereNow()) !== dir.path) throw new WriteTargetChangedError(job.path, `${dir.path} now leads elsewhere`);
}

/** Bytes of the new content written into the target per system call when it is rewritten in place. */
const COPY_CHUNK = 4 * 1024 * 1024;

/** A write in place failed, and so did putting the old bytes back: the journal keeps them. */
export class InPlaceRestoreError extends Error {
  readonly code: string | undefined;
  constructor(path: string, cause: unknown, restoreCause: unknown, journal: string | undefined) {
    const code = errnoCode(cause);
    const why = code !== undefined ? describeErrno(code) : (cause as Error | undefined)?.message ?? String(cause);
    const restoreCode = errnoCode(restoreCause);
    const restoreWhy = restoreCode !== undefined ? describeErrno(restoreCode) : (restoreCause as Error | undefined)?.message ?? String(restoreCause);
    super(
      `${path} was left part-written: the write failed (${why}), and putting its old content back failed too (${restoreWhy}). ` +
        (journal !== undefined
          ? `The old content is kept in ${journal}; the next armature write in that folder, or \`armature gc\`, puts it back.`
          : `Check the file before using it.`),
    );
    this.name = "InPlaceRestoreError";
    this.code = code;
  }
}

/**
 * For a file whose identity a rename would change (hard links, an owner this process cannot
 * give a new file): the same inode is rewritten through a descriptor checked to be the file
 * judged. Not atomic for readers, but all-or-nothing: the new content and the old go to a
 * journal beside the file first (copy-journal.ts), fsynced, so that a full disk, a quota or a
 * size limit refuses the write before the file is touched; then the new bytes are copied in
 * from the start, the file is cut to its new length and fsynced. Any failure from there puts
 * the old bytes back (their blocks are allocated already); a kill leaves the journal, from
 * which the folder's next sweep does it. A folder where no journal can be made (not writable)
 * gets the same order without one.
 */
async function writeInPlace(job: WriteJob, existing: Stats): Promise<void> {
  const { dir, name, target } = job;
  const chunks = [...chunksOf(job.data)];
  const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  const handle = await open(dir.at(name), constants.O_RDWR | constants.O_NOFOLLOW);
  try {
    const info = await handle.stat();
    if (info.ino !== existing.ino || info.dev !== existing.dev) {
      throw new WriteTargetChangedError(job.path, `${target} was replaced by another file while it was written`);
    }
    const oldSize = info.size;
    const old = await readExactly(handle, oldSize);
    if (old.length !== oldSize) throw new WriteTargetChangedError(job.path, `${target} changed size while it was read`);
    let journal: CopyJournal | undefined;
    try {
      journal = await writeCopyJournal(dir, name, tempNameFor(name), info, bytes, old);
    } catch (err) {
      if (!NOT_MINE.has(errnoCode(err) ?? "")) throw err;
      // The folder is not writable (the file is): no journal, the same order.
    }
    let keepJournal = false;
    try {
      await job.hooks?.beforeRename?.(journal?.path ?? target, target);
      await verifyBeforeReplace(job);
      // An exit in the middle (a signal handler's process.exit) puts the old bytes back first.
      const fd = handle.fd;
      const forget = undoAtExit(() => restoreSync(fd, old));
      try {
        await copyIn(handle, bytes, oldSize, job);
      } catch (err) {
        try {
          await writeFully(handle, old, 0);
          await handle.truncate(oldSize);
          await handle.sync();
          const { size } = await handle.stat();
          if (size !== oldSize) throw shortWrite(oldSize, size);
        } catch (restoreErr) {
          keepJournal = journal !== undefined;
          throw new InPlaceRestoreError(job.path, err, restoreErr, journal?.path);
        }
        throw err;
      } finally {
        forget();
      }
    } finally {
      if (!keepJournal) await journal?.remove();
    }
  } finally {
    await handle.close();
  }
}

/** The new bytes over the old from the start, then the file cut to their length and fsynced. */
async function copyIn(handle: FileHandle, bytes: Uint8Array, oldSize: number, job: WriteJob): Promise<void> {
  for (let at = 0; at < bytes.length; at += COPY_CHUNK) {
    const end = Math.min(bytes.length, at + COPY_CHUNK);
    await writeFully(handle, bytes.subarray(at, end), at);
    await job.hooks?.duringCopyBack?.(job.target, end);
  }
  if (bytes.length < oldSize) await handle.truncate(bytes.length);
  await handle.sync();
  const after = await handle.stat();
  if (after.size !== bytes.length) throw shortWrite(bytes.length, after.size);
}

function restoreSync(fd: number, old: Buffer): void {
  let done = 0;
  while (done < old.length) done += writeSync(fd, old, done, old.length - done, done);
  ftruncateSync(fd, old.length);
  fsyncSync(fd);
}
