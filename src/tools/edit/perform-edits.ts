import type { StructuredPatchHunk } from "diff";
import type { ToolUseContext } from "../../tool/types.js";
import { ToolUseError } from "../../tool/tool-use-error.js";
import { STATE_CURRENT_SUFFIX } from "../../fs/file-state.js";
import { detectLineEnding, UTF8 } from "../../fs/encoding.js";
import { withFileLockFor } from "../../fs/file-lock.js";
import { diffWrite, tooLargeToDiffNote } from "../../fs/patch.js";
import { missingFileMessage } from "../../fs/similar-files.js";
import { loadForWrite, writeTextFile, type WriterOptions } from "../../fs/text-file.js";
import { applyEdits, type AppliedEdit, type EditSpec } from "./apply-edits.js";

export interface EditsDone {
  filePath: string;
  originalFile: string;
  /** The content after the edits (not part of the hook data; used for the snippet). */
  updatedFile: string;
  structuredPatch: StructuredPatchHunk[];
  created: boolean;
  applied: AppliedEdit[];
  /** Set when the encoding had to change, or when the change was too large to diff. */
  note?: string;
  /** Before the edit the model had the whole file in view, so now it has the new state too. */
  seenWhole: boolean;
}

/**
 * Edits of one file, under its lock: load (checks: regular file, ≤ 1 GiB, read in full and not
 * changed since), apply all edits in memory, write atomically in the file's encoding, record.
 */
export async function performEdits(
  path: string,
  edits: readonly EditSpec[],
  context: ToolUseContext,
  options: WriterOptions & { judgedTarget?: string },
): Promise<EditsDone> {
  if (path.toLowerCase().endsWith(".ipynb")) {
    throw new ToolUseError("File is a Jupyter Notebook. Use NotebookEdit to change its cells.");
  }
  return withFileLockFor(path, async () => {
    const existing = await loadForWrite(path, context, options);
    if (!existing.exists && edits[0]?.old_string !== "") {
      throw new ToolUseError(await missingFileMessage(path, context.workspace.cwd));
    }
    const original = existing.exists ? existing.text : "";
    const outcome = applyEdits(original, edits, existing.exists ? detectLineEnding(original) : "\n");
    if (!outcome.ok) throw new ToolUseError(outcome.message);
    const written = await writeTextFile(path, outcome.content, existing.exists ? existing.format : UTF8, context, {
      ...options,
      createParents: !existing.exists,
      expectMtimeMs: existing.exists ? existing.mtimeMs : null,
    });
    const diff = diffWrite(original, outcome.content);
    const done: EditsDone = {
      filePath: path,
      originalFile: original,
      updatedFile: outcome.content,
      structuredPatch: diff.hunks,
      created: !existing.exists,
      applied: outcome.applied,
      seenWhole: !existing.exists || existing.seenWhole,
    };
    const notes = [written.note, diff.omitted ? tooLargeToDiffNote(diff.omitted) : undefined].filter((n) => n !== undefined);
    if (notes.length > 0) done.note = notes.join("\n");
    return done;
  });
}

/** The parts of an edit's data the model-facing text is made of. */
export interface EditSummary {
  filePath: string;
  created: boolean;
  replaceAll: boolean;
  /** The model's view of the file is whole and current after the edit. */
  stateCurrent: boolean;
  note?: string;
}

export function summarizeEdits(done: EditsDone, replaceAll: boolean): EditSummary {
  const summary: EditSummary = { filePath: done.filePath, created: done.created, replaceAll, stateCurrent: done.seenWhole };
  if (done.note !== undefined) summary.note = done.note;
  return summary;
}

/**
 * What the model reads after a successful edit: the reference's success line, and its note that
 * the file need not be read back when the model had seen all of it before (a window leaves the
 * rest unknown, so then the note is left out).
 */
export function editResultText(s: EditSummary): string {
  const line = s.created
    ? `File created successfully at: ${s.filePath}`
    : s.replaceAll
      ? `The file ${s.filePath} has been updated. All occurrences were successfully replaced.`
      : `The file ${s.filePath} has been updated successfully.`;
  const text = s.stateCurrent ? line + STATE_CURRENT_SUFFIX : line;
  return s.note === undefined ? text : `${text}\n${s.note}`;
}
