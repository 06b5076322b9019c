import { toCrlf, type LineEnding } from "../../fs/encoding.js";
import { findActualString, matchQuoteStyle } from "./find-actual-string.js";

export interface EditSpec {
  old_string: string;
  new_string: string;
  replace_all?: boolean;
}

export interface AppliedEdit {
  /** How old_string was found: exactly, by the tolerant match, or the file was created/filled. */
  match: "exact" | "tolerant" | "create";
  /** Places replaced. */
  count: number;
}

export type EditOutcome = { ok: true; content: string; applied: AppliedEdit[] } | { ok: false; message: string };

export const SAME_STRING_MESSAGE = "No changes to make: old_string and new_string are exactly the same.";

/** The reference's text, without a hint: the model reads it as "copy old_string exactly". */
export function notFoundMessage(oldString: string): string {
  return `String to replace not found in file.\nString: ${oldString}`;
}

export function tooManyMatchesMessage(count: number, oldString: string): string {
  return `Found ${count} matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: ${oldString}`;
}

export function tolerantAmbiguousMessage(count: number, oldString: string): string {
  return `String to replace not found exactly, and after straightening quotes it matches ${count} places. Copy old_string exactly as Read shows it, with enough context to identify one place.\nString: ${oldString}`;
}

const NON_EMPTY_CREATE_MESSAGE = "Cannot create new file - file already exists.";

function replaceAt(content: string, index: number, length: number, replacement: string): string {
  return content.slice(0, index) + replacement + content.slice(index + length);
}

/** One edit on `content`; the new content or why it cannot apply. */
export function applyEdit(content: string, edit: EditSpec, lineEnding: LineEnding): { content: string; applied: AppliedEdit } | string {
  const { old_string: oldString, new_string: newString } = edit;
  if (oldString === newString) return SAME_STRING_MESSAGE;
  if (oldString === "") {
    if (content !== "") return NON_EMPTY_CREATE_MESSAGE;
    return { content: lineEnding === "\r\n" ? toCrlf(newString) : newString, applied: { match: "create", count: 1 } };
  }
  // The model writes \n; in a CRLF file try the CRLF form first, then the text as given
  // (a file with mixed endings may hold it with LF).
  const candidates: Array<[string, string]> = [];
  if (lineEnding === "\r\n" && oldString.includes("\n")) candidates.push([toCrlf(oldString), toCrlf(newString)]);
  candidates.push([oldString, lineEnding === "\r\n" && !oldString.includes("\n") ? toCrlf(newString) : newString]);
  for (const [search, replacement] of candidates) {
    const found = findActualString(content, search);
    if (found.kind !== "exact") continue;
    if (found.count > 1 && !edit.replace_all) return tooManyMatchesMessage(found.count, oldString);
    const next = edit.replace_all ? content.split(search).join(replacement) : replaceAt(content, content.indexOf(search), search.length, replacement);
    return { content: next, applied: { match: "exact", count: found.count } };
  }
  const found = findActualString(content, oldString);
  if (found.kind === "tolerant-ambiguous") return tolerantAmbiguousMessage(found.count, oldString);
  if (found.kind !== "tolerant") return notFoundMessage(oldString);
  let replacement = matchQuoteStyle(newString, oldString, found.actual);
  if (lineEnding === "\r\n") replacement = toCrlf(replacement);
  return { content: replaceAt(content, found.index, found.actual.length, replacement), applied: { match: "tolerant", count: 1 } };
}

/**
 * Edits in order, each on the result of the one before; all or nothing. The file's trailing
 * newline state is kept (an edit at the end that drops or adds the final newline is undone).
 */
export function applyEdits(original: string, edits: readonly EditSpec[], lineEnding: LineEnding): EditOutcome {
  let content = original;
  const applied: AppliedEdit[] = [];
  for (const [i, edit] of edits.entries()) {
    const result = applyEdit(content, edit, lineEnding);
    if (typeof result === "string") {
      return { ok: false, message: edits.length === 1 ? result : `Edit ${i + 1} of ${edits.length} failed, so no edit was applied: ${result}` };
    }
    content = result.content;
    applied.push(result.applied);
  }
  if (original !== "" && content !== "") {
    const hadNewline = original.endsWith("\n");
    if (hadNewline && !content.endsWith("\n")) content += lineEnding;
    else if (!hadNewline && content.endsWith("\n")) content = content.slice(0, content.endsWith("\r\n") ? -2 : -1);
  }
  return { ok: true, content, applied };
}
