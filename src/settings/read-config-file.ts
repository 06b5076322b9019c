import { constants } from "node:fs";
import { open } from "node:fs/promises";

/**
 * Reading a configuration file a project may ship (settings, `.mcp.json`, agent files, the
 * trust store): regular files only, opened non-blocking (a FIFO must not hang the load), at most
 * MAX_CONFIG_BYTES (a symlink to /dev/zero must not fill memory) and JSON nested at most
 * MAX_CONFIG_DEPTH deep (deep nesting must not overflow the stack of whoever walks it). Each
 * failure is a ConfigFileError naming the file; none of them is silently skipped.
 */
export const MAX_CONFIG_BYTES = 1024 * 1024;
export const MAX_CONFIG_DEPTH = 64;

export class ConfigFileError extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
    /** The file does not exist (a level's own file may be absent). */
    readonly missing = false,
  ) {
    super(`${path}: ${problem}`);
    this.name = "ConfigFileError";
  }
}

/** The file's bytes, or a ConfigFileError (`missing` when it does not exist). */
export async function readConfigBytes(path: string, maxBytes = MAX_CONFIG_BYTES): Promise<Buffer> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") throw new ConfigFileError(path, "no such file", true);
    throw new ConfigFileError(path, `cannot read the file: ${(err as Error).message}`);
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new ConfigFileError(path, "not a regular file (a device, FIFO, socket or directory is never read as configuration)");
    if (info.size > maxBytes) throw new ConfigFileError(path, `too large (${info.size} bytes; at most ${maxBytes})`);
    // The size can change between stat and read: read one byte past the cap to notice.
    const buffer = Buffer.alloc(Math.min(info.size, maxBytes) + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > maxBytes) throw new ConfigFileError(path, `too large (more than ${maxBytes} bytes)`);
      if (length === buffer.length) break;
    }
    return buffer.subarray(0, length);
  } finally {
    await handle.close();
  }
}

/** How deep `[`/`{` nest in a JSON text, strings skipped; stops counting past `limit`. */
export function jsonDepth(text: string, limit = MAX_CONFIG_DEPTH): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth > max) max = depth;
      if (max > limit) return max;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return max;
}

/** A JSON configuration file, parsed: `undefined` when it does not exist; a ConfigFileError otherwise. */
export async function readConfigJson(path: string): Promise<unknown> {
  let bytes: Buffer;
  try {
    bytes = await readConfigBytes(path);
  } catch (err) {
    if (err instanceof ConfigFileError && err.missing) return undefined;
    throw err;
  }
  const text = bytes.toString("utf8");
  if (jsonDepth(text) > MAX_CONFIG_DEPTH) throw new ConfigFileError(path, `nested more than ${MAX_CONFIG_DEPTH} levels deep`);
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new ConfigFileError(path, `not valid JSON (${(err as Error).message})`);
  }
}
