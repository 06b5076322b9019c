import { createHash } from "node:crypto";
import type { ReadFileEntry, ReadFileState } from "../../tool/read-file-state.js";

export function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/**
 * Records what a Read saw. A partial look at a file the session already read in full, and that
 * has not changed since, keeps the full entry: reading a window again does not forbid an edit.
 */
export function recordRead(
  state: ReadFileState,
  path: string,
  seen: { contentHash: string; mtimeMs: number; partial: boolean },
): void {
  const previous = state.get(path);
  if (seen.partial && previous && !previous.partial && previous.mtimeMs === seen.mtimeMs) return;
  state.set(path, { ...seen, recordedAt: Date.now() });
}

export type Freshness = { ok: true } | { ok: false; reason: "not-read" | "partial" | "modified"; message: string };

export const NOT_READ_MESSAGE = "File has not been read yet. Read it first before writing to it.";
export const PARTIAL_READ_MESSAGE =
  "File has only been read in part. Read the rest of it first (windows of an unchanged file add up to a full read) before writing to it.";
export const MODIFIED_MESSAGE =
  "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.";

/**
 * Whether a writer may change a file it is about to overwrite: read in full in this session, and
 * unchanged since. The mtime decides when it is equal; when it differs, the content hash has the
 * last word (a `touch` or a checkout of the same content is not a change).
 */
export function judgeFreshness(
  entry: ReadFileEntry | undefined,
  current: { mtimeMs: number; contentHash: () => string },
): Freshness {
  if (!entry) return { ok: false, reason: "not-read", message: NOT_READ_MESSAGE };
  if (entry.partial) return { ok: false, reason: "partial", message: PARTIAL_READ_MESSAGE };
  if (entry.mtimeMs === current.mtimeMs) return { ok: true };
  if (entry.contentHash === current.contentHash()) return { ok: true };
  return { ok: false, reason: "modified", message: MODIFIED_MESSAGE };
}
