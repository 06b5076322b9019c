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
  const target = await writeTarget(path);
  const dir = dirname(target);
  if (options.createParents) await mkdir(dir, { recursive: true });
  let mode: number | undefined;
  try {
    mode = (await stat(target)).mode & 0o7777;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  const temp = join(dir, `.${basename(target)}.${randomBytes(6).toString("hex")}.tmp`);
  const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o666);
  let renamed = false;
  try {
    try {
      if (data instanceof Uint8Array) await handle.writeFile(data);
      else for (const chunk of data) await handle.write(chunk);
      if (mode !== undefined) await handle.chmod(mode);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await options.hooks?.beforeRename?.(temp, target);
    await rename(temp, target);
    renamed = true;
  } finally {
    if (!renamed) await unlink(temp).catch(() => undefined);
  }
  await syncDirectory(dir);
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
