import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { lstat, mkdir, open, readlink, realpath, rename, stat, unlink } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";

/** Points where a test (or a host) can step into an atomic write. */
export interface AtomicWriteHooks {
  /** After the temp file is written and synced, before it replaces the target. A throw aborts the write. */
  beforeRename?(tempPath: string, targetPath: string): void | Promise<void>;
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

/**
 * Replaces (or creates) `path` with `data` so that a reader sees the old content or the new,
 * never a mix, and a failure at any point leaves the old file as it was: a temp file in the
 * same folder, fsync, then rename over the target. An existing file's permission bits are kept.
 * `data` may be a sequence of chunks, written in order.
 */
export async function atomicWriteFile(path: string, data: Uint8Array | Iterable<Uint8Array>, options: AtomicWriteOptions = {}): Promise<void> {
  const resolved = await writeTarget(path);
  if (options.createParents) await mkdir(dirname(resolved), { recursive: true });
  // The directory by its real name, and the file in it: every later step uses these names only.
  const dir = await realDirOrSelf(dirname(resolved));
  const target = join(dir, basename(resolved));
  if (options.expectTarget !== undefined && target !== options.expectTarget) {
    throw new WriteTargetChangedError(path, `it now leads to ${target}, not to ${options.expectTarget} as when it was checked`);
  }
  let mode: number | undefined;
  try {
    mode = (await stat(target)).mode & 0o7777;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  const temp = join(dir, `.${basename(target)}.${randomBytes(6).toString("hex")}.tmp`);
  // O_EXCL|O_NOFOLLOW: a name planted where the temp file goes is an error, never followed.
  const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o666);
  let renamed = false;
  try {
    let ino: number;
    try {
      if (data instanceof Uint8Array) await handle.writeFile(data);
      else for (const chunk of data) await handle.write(chunk);
      if (mode !== undefined) await handle.chmod(mode);
      else if (options.newFileMode !== undefined) await handle.chmod(options.newFileMode);
      await handle.sync();
      ino = (await handle.stat()).ino;
    } finally {
      await handle.close();
    }
    await options.hooks?.beforeRename?.(temp, target);
    await verifyBeforeRename(path, dir, target);
    // rename(2) replaces the last component itself (a symlink there is replaced, not followed).
    await rename(temp, target);
    renamed = true;
    const landed = await lstat(target).catch(() => undefined);
    if (landed?.ino !== ino || (await realDirOrSelf(dir)) !== dir) {
      throw new WriteTargetChangedError(path, `${dir} changed while it was written; the new content may be elsewhere`);
    }
  } finally {
    if (!renamed) await unlink(temp).catch(() => undefined);
  }
  await syncDirectory(dir);
}

/**
 * The last look before the rename: the target is not (now) a symlink, and the directory still
 * is the one judged (no component of it swapped for a symlink). What remains is the time between
 * this look and rename(2) itself, during which a directory above the target could be renamed
 * away and replaced by a symlink by another process of the same user: Node has no renameat(2)
 * relative to a held directory handle. The check after the rename reports that case.
 */
async function verifyBeforeRename(path: string, dir: string, target: string): Promise<void> {
  const info = await lstat(target).catch(() => undefined);
  if (info?.isSymbolicLink()) throw new WriteTargetChangedError(path, `${target} became a symlink while it was written`);
  if ((await realDirOrSelf(dir)) !== dir) throw new WriteTargetChangedError(path, `${dir} now leads elsewhere`);
}

/** Makes the rename itself durable; best effort (not every file system allows it). */
async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, constants.O_RDONLY);
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Directory fsync is unsupported on some platforms; the data itself is already synced.
  }
}
