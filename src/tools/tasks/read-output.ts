import { open } from "node:fs/promises";
import { inlineFromParts, type InlineText } from "../bash/output.js";

export interface NewOutput extends InlineText {
  /** The offset to read from next time. */
  end: number;
  /** Bytes that were new since `from`. */
  newBytes: number;
}

/**
 * The output written to `path` since byte `from`, at most `maxChars` characters inline (head and
 * tail when there is more). Reads two ranges at most: memory stays bounded whatever the size.
 */
export async function readNewOutput(path: string, from: number, maxChars: number): Promise<NewOutput> {
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
