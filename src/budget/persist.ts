import { mkdir, realpath } from "node:fs/promises";
import { join } from "node:path";
import { atomicWriteFile } from "../fs/atomic-write.js";
import type { ToolResultBlock, ToolResultContent } from "../tool/types.js";

export const PREVIEW_BYTES = 2_000;

/** Characters of text in a result (images are not counted: they are not text in the context). */
export function resultTextLength(content: ToolResultContent): number {
  if (typeof content === "string") return content.length;
  let n = 0;
  for (const block of content) if (block.type === "text") n += block.text.length;
  return n;
}

function resultText(content: ToolResultContent): string {
  if (typeof content === "string") return content;
  return content
    .filter((b) => b.type === "text")
    .map((b) => (b as { text: string }).text)
    .join("\n");
}

/** A size as the reference agent writes it: `512 bytes`, `29.3KB`, `1.2MB`, `256KB`. */
export function formatSize(bytes: number): string {
  const trim = (n: number): string => n.toFixed(1).replace(/\.0$/, "");
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 ** 2) return `${trim(bytes / 1024)}KB`;
  if (bytes < 1024 ** 3) return `${trim(bytes / 1024 ** 2)}MB`;
  return `${trim(bytes / 1024 ** 3)}GB`;
}

/** The reference's `<persisted-output>` block: the size, where the whole output is, a 2 KB preview. */
export function persistedOutputText(size: number, path: string, text: string): string {
  const { preview, more } = previewOf(text);
  return (
    `<persisted-output>\nOutput too large (${formatSize(size)}). Full output saved to: ${path}\n\n` +
    `Preview (first 2KB):\n${preview}${more ? "\n..." : ""}\n</persisted-output>`
  );
}

/** A file name that is safe for any tool_use id a model may send. */
export function resultFileName(toolUseId: string): string {
  const safe = toolUseId.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 128) || "result";
  return `${safe}.txt`;
}

/** Cuts a string at a byte budget without splitting a UTF-8 character, preferring a line end. */
export function previewOf(text: string, maxBytes = PREVIEW_BYTES): { preview: string; more: boolean } {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= maxBytes) return { preview: text, more: false };
  let cut = bytes.subarray(0, maxBytes).toString("utf8");
  if (cut.endsWith("\uFFFD")) cut = cut.slice(0, -1);
  const nl = cut.lastIndexOf("\n");
  if (nl > maxBytes / 2) cut = cut.slice(0, nl);
  return { preview: cut, more: true };
}

/**
 * Writes `text` to `<sessionDir>/tool-results/<name>` through the atomic writer: the folder is
 * the session's own, so a symlink at the file's name is replaced rather than followed, and a
 * `tool-results` swapped for a symlink (a command can write the temp dir) is an error, not a
 * write wherever it points.
 */
async function saveResultText(sessionDir: string, name: string, text: string): Promise<string> {
  const dir = join(sessionDir, "tool-results");
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, name);
  const expected = join(await realpath(sessionDir), "tool-results", name);
  await atomicWriteFile(path, Buffer.from(text, "utf8"), { followLinks: false, expectTarget: expected });
  return path;
}

/**
 * Writes a result that is over its tool's budget to `<sessionDir>/tool-results/<id>.txt` and
 * returns the block that replaces it: `<persisted-output>` with the size, the path and a
 * 2 KB preview. Image blocks of a rich result stay inline. When the file cannot be written
 * (a full disk…), the preview stays and the text says why the rest is not available.
 */
export async function persistOversizedResult(block: ToolResultBlock, sessionDir: string): Promise<ToolResultBlock> {
  const text = resultText(block.content);
  let message: string;
  try {
    const path = await saveResultText(sessionDir, resultFileName(block.tool_use_id), text);
    message = persistedOutputText(Buffer.byteLength(text, "utf8"), path, text);
  } catch (err) {
    const { preview, more } = previewOf(text);
    message =
      `<persisted-output>\nOutput too large (${formatSize(Buffer.byteLength(text, "utf8"))}). The full output could not be saved to a file (${(err as Error).message}); only the preview below is available.\n\n` +
      `Preview (first 2KB):\n${preview}${more ? "\n..." : ""}\n</persisted-output>`;
  }
  const images = typeof block.content === "string" ? [] : block.content.filter((b) => b.type === "image" || b.type === "document");
  const replaced: ToolResultBlock = {
    ...block,
    content: images.length === 0 ? message : [{ type: "text", text: message }, ...images],
  };
  return replaced;
}
