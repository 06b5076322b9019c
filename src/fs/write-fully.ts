import type { FileHandle } from "node:fs/promises";

/**
 * Writes all of `bytes` at `position`, looping on short writes: write(2) may store fewer bytes
 * than asked (a disk filling up, a signal), and a count that is not checked is silent data loss.
 * A write that stores nothing at all is an error rather than an endless loop.
 */
export async function writeFully(handle: FileHandle, bytes: Uint8Array, position: number): Promise<void> {
  let done = 0;
  while (done < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, done, bytes.length - done, position + done);
    if (bytesWritten <= 0) {
      const err = new Error(`write stored 0 of ${bytes.length - done} bytes`) as NodeJS.ErrnoException;
      err.code = "ENOSPC";
      throw err;
    }
    done += bytesWritten;
  }
}

/** Reads `size` bytes from offset 0 (fewer when the file is shorter now). */
export async function readExactly(handle: FileHandle, size: number): Promise<Buffer> {
  const buf = Buffer.alloc(size);
  let done = 0;
  while (done < size) {
    const { bytesRead } = await handle.read(buf, done, size - done, done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return done === size ? buf : buf.subarray(0, done);
}
