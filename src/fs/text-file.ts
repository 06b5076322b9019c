import { createHash } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import type { ToolUseContext } from "../tool/types.js";
import { ToolUseError } from "../tool/tool-use-error.js";
import { atomicWriteFile, type AtomicWriteHooks } from "./atomic-write.js";
import { canEncode, decodeText, encodeTextChunks, UTF8, type TextFormat } from "./encoding.js";
import { judgeFreshness, MODIFIED_MESSAGE, sha256 } from "./file-state.js";

export const MAX_EDIT_FILE_BYTES = 1024 ** 3;

/** Options every writer takes. */
export interface WriterOptions {
  /**
   * Require a full Read of the file in this session, unchanged since, before changing it
   * (default true). Turning it off is a deliberate choice of the host, never a fallback.
   */
  requireReadBeforeEdit?: boolean;
  /** Steps into the atomic write (tests inject failures here). */
  atomicWriteHooks?: AtomicWriteHooks;
}

export type ExistingText =
  | { exists: false }
  | {
      exists: true;
      text: string;
      format: TextFormat;
      mtimeMs: number;
      /** The last Read showed the whole file (a window leaves the model without the rest). */
      seenWhole: boolean;
    };

/** The writers' refusal of a file that is not UTF-8 (the reference's text). */
export const LEGACY_ENCODING_MESSAGE =
  "File is not valid UTF-8: it uses a legacy encoding such as Windows-1252, Shift-JIS or GBK, or it is binary. These tools write UTF-8 (or UTF-16LE behind its byte-order mark) and never convert a file's encoding on their own, so nothing was written. If the file is text, make the change with a shell command that reads and writes it in its own encoding (iconv, or PowerShell Get-Content/Set-Content -Encoding), or ask the user whether to convert it to UTF-8 first. To replace the whole file with new UTF-8 text anyway, delete it first, then Write it.";

function formatBytes(n: number): string {
  if (n >= 1024 ** 3) return `${(n / 1024 ** 3).toFixed(1)} GiB`;
  if (n >= 1024 ** 2) return `${(n / 1024 ** 2).toFixed(1)} MiB`;
  return `${n} bytes`;
}

/**
 * The current text of a file a writer is about to change, after the checks every writer makes:
 * a regular file, at most 1 GiB, read in full in this session and unchanged since.
 */
export async function loadForWrite(path: string, context: ToolUseContext, options: WriterOptions): Promise<ExistingText> {
  let info;
  try {
    info = await stat(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return { exists: false };
    throw err;
  }
  if (info.isDirectory()) throw new ToolUseError(`${path} is a directory, not a file. Give the path of a file inside it.`);
  if (!info.isFile()) throw new ToolUseError(`${path} is not a regular file (a device, FIFO or socket); it cannot be edited.`);
  if (info.size > MAX_EDIT_FILE_BYTES) {
    throw new ToolUseError(`File is too large to edit (${formatBytes(info.size)}; the limit is 1 GiB). Use Bash (sed, or a script) to change it.`);
  }
  const bytes = await readFile(path);
  const entry = context.readFileState.get(path);
  if (options.requireReadBeforeEdit !== false) {
    let hash: string | undefined;
    const freshness = judgeFreshness(entry, {
      mtimeMs: info.mtimeMs,
      contentHash: () => (hash ??= sha256(bytes)),
    });
    if (!freshness.ok) throw new ToolUseError(freshness.message);
  }
  const { text, format } = decodeText(bytes);
  // A Latin-1 guess could be wrong (Windows-1252, Shift-JIS…): rewriting would corrupt the file.
  if (format.encoding === "latin1") throw new ToolUseError(LEGACY_ENCODING_MESSAGE);
  return { exists: true, text, format, mtimeMs: info.mtimeMs, seenWhole: entry !== undefined && !entry.partial };
}

const CREATED_MEANWHILE_MESSAGE = "The file was created by someone else while this call ran. Read it, then write again.";

export interface WrittenText {
  format: TextFormat;
  /** Set when the file's own encoding could not hold the new text. */
  note?: string;
}

/** Stores `text` atomically in `format` (or UTF-8 when Latin-1 cannot hold it) and records it as read. */
export async function writeTextFile(
  path: string,
  text: string,
  format: TextFormat,
  context: ToolUseContext,
  options: WriterOptions & { createParents?: boolean; expectMtimeMs?: number | null; judgedTarget?: string },
): Promise<WrittenText> {
  let used = format;
  let note: string | undefined;
  if (!canEncode(text, format)) {
    used = UTF8;
    note = "The file was Latin-1 and the new text has characters Latin-1 cannot store, so it was written as UTF-8.";
  }
  // Encoded and hashed a slice at a time: the new text is not held a second time as bytes.
  const hash = createHash("sha256");
  const chunks = (function* () {
    for (const chunk of encodeTextChunks(text, used)) {
      hash.update(chunk);
      yield chunk;
    }
  })();
  const hostHook = options.atomicWriteHooks?.beforeRename;
  const expected = options.expectMtimeMs;
  await atomicWriteFile(path, chunks, {
    createParents: options.createParents,
    expectTarget: options.judgedTarget,
    hooks: {
      beforeRename: async (temp, target) => {
        await hostHook?.(temp, target);
        // Another process may have written the file while we worked: last look before replacing it.
        if (expected === undefined) return;
        const now = await stat(target).catch(() => undefined);
        if (expected === null && now !== undefined) throw new ToolUseError(CREATED_MEANWHILE_MESSAGE);
        if (expected !== null && now?.mtimeMs !== expected) throw new ToolUseError(MODIFIED_MESSAGE);
      },
    },
  });
  const after = await stat(path);
  // After our own write the session knows the whole new content.
  context.readFileState.set(path, { contentHash: hash.digest("hex"), mtimeMs: after.mtimeMs, partial: false, recordedAt: Date.now() });
  return note === undefined ? { format: used } : { format: used, note };
}
