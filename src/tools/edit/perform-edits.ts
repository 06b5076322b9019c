import type { StructuredPatchHunk } from "diff";
import type { ToolUseContext } from "../../tool/types.js";
import { detectLineEnding, UTF8 } from "../fs/encoding.js";
import { withFileLockFor } from "../fs/file-lock.js";
import { diffWrite, tooLargeToDiffNote } from "../fs/patch.js";
import { missingFileMessage } from "../fs/similar-files.js";
import { numberedSnippet } from "../fs/snippet.js";
import { loadForWrite, writeTextFile, type WriterOptions } from "../fs/text-file.js";
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
    throw new Error("File is a Jupyter Notebook. Use NotebookEdit to change its cells.");
  }
  return withFileLockFor(path, async () => {
    const existing = await loadForWrite(path, context, options);
    if (!existing.exists && edits[0]?.old_string !== "") {
      throw new Error(`${await missingFileMessage(path, context.workspace.cwd)} To create it, use an empty old_string (or Write).`);
    }
    const original = existing.exists ? existing.text : "";
    const outcome = applyEdits(original, edits, existing.exists ? detectLineEnding(original) : "\n");
    if (!outcome.ok) throw new Error(outcome.message);
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
    };
    const notes = [written.note, diff.omitted ? tooLargeToDiffNote(diff.omitted) : undefined].filter((n) => n !== undefined);
    if (notes.length > 0) done.note = notes.join("\n");
    return done;
  });
}

export const TOLERANT_NOTE =
  "Note: old_string did not match exactly; it matched one place after normalising curly quotes and trailing whitespace, and that place was replaced.";

/** The parts of an edit's data the model-facing text is made of. */
export interface EditSummary {
  filePath: string;
  created: boolean;
  replaceAll: boolean;
  /** Edits that used the tolerant match, of how many. */
  tolerantEdits: number;
  totalEdits: number;
  note?: string;
  /** Numbered lines of the changed regions. */
  snippet: string;
}

export function summarizeEdits(done: EditsDone, replaceAll: boolean): EditSummary {
  const summary: EditSummary = {
    filePath: done.filePath,
    created: done.created,
    replaceAll,
    tolerantEdits: done.applied.filter((a) => a.match === "tolerant").length,
    totalEdits: done.applied.length,
    snippet: done.structuredPatch.length > 0 ? numberedSnippet(done.updatedFile, done.structuredPatch) : "",
  };
  if (done.note !== undefined) summary.note = done.note;
  return summary;
}

/** What the model reads after a successful edit: the success line, notes, a numbered snippet. */
export function editResultText(s: EditSummary): string {
  if (s.created) return `File created successfully at: ${s.filePath}`;
  const lines = [
    s.replaceAll
      ? `The file ${s.filePath} has been updated. All occurrences were successfully replaced.`
      : `The file ${s.filePath} has been updated successfully.`,
  ];
  if (s.tolerantEdits > 0) lines.push(s.totalEdits === 1 ? TOLERANT_NOTE : `${TOLERANT_NOTE} (${s.tolerantEdits} of ${s.totalEdits} edits)`);
  if (s.note !== undefined) lines.push(s.note);
  if (s.snippet !== "") lines.push(`Here's the result of running \`cat -n\` on a snippet of the edited file:\n${s.snippet}`);
  return lines.join("\n");
}
