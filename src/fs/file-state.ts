import { createHash } from "node:crypto";
import type { ReadFileEntry, ReadFileState } from "../tool/read-file-state.js";

export function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/**
 * Records what a Read saw. `partial` says whether the model now has the whole file in view (the
 * success text of a later edit says so); a window of a file already read in full, unchanged
 * since, keeps that read's hash so the staleness check can still compare content.
 */
export function recordRead(
  state: ReadFileState,
  path: string,
  seen: { contentHash: string; mtimeMs: number; partial: boolean },
): void {
  const previous = state.get(path);
  const keepHash = seen.partial && seen.contentHash === "" && previous !== undefined && previous.mtimeMs === seen.mtimeMs;
  state.set(path, { ...seen, contentHash: keepHash ? previous.contentHash : seen.contentHash, recordedAt: Date.now() });
}

export type Freshness = { ok: true } | { ok: false; reason: "not-read" | "modified"; message: string };

export const NOT_READ_MESSAGE = "File has not been read yet. Read it first before writing to it.";
export const MODIFIED_MESSAGE =
  "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.";

/** Appended to a writer's success text when the model's view of the file is whole and current. */
export const STATE_CURRENT_SUFFIX = " (file state is current in your context — no need to Read it back)";

/**
 * Whether a writer may change a file it is about to overwrite: read in this session (a window is
 * enough, as for the reference: old_string must still be found), and unchanged since. The mtime decides when it is equal; when it differs, the content hash has the
 * last word (a `touch` or a checkout of the same content is not a change).
 */
export function judgeFreshness(
  entry: ReadFileEntry | undefined,
  current: { mtimeMs: number; contentHash: () => string },
): Freshness {
  if (!entry) return { ok: false, reason: "not-read", message: NOT_READ_MESSAGE };
  if (entry.mtimeMs === current.mtimeMs) return { ok: true };
  if (entry.contentHash === current.contentHash()) return { ok: true };
  return { ok: false, reason: "modified", message: MODIFIED_MESSAGE };
}
