export const EDIT_TOOL_NAME = "Edit";
export const MULTI_EDIT_TOOL_NAME = "MultiEdit";

export const EDIT_DESCRIPTION = `Performs exact string replacements in files.

Usage:
- You must Read the whole file in this conversation before editing it (in one call, or in offset/limit windows that together cover it); the edit is refused if the file changed since — read it again then.
- Copy old_string exactly as the file has it, indentation included. Do not include the line-number prefix Read adds (the number and the tab before the text).
- The edit fails if old_string is not unique in the file: give more surrounding context to make it unique, or set replace_all to change every occurrence (useful to rename a variable).
- If there is no exact match, a match that ignores curly vs straight quotes and trailing whitespace is used when it finds exactly one place; the result says so.
- An empty old_string on a file that does not exist creates it (and its folders).
- Line endings, encoding, byte-order mark, final newline and file mode are kept.
- Prefer editing existing files to creating new ones.`;

export const MULTI_EDIT_DESCRIPTION = `Makes several exact string replacements in one file in one step. Same rules as Edit, for each edit in order.

Usage:
- edits are applied in order, each to the result of the previous one.
- All or nothing: if any edit fails (not found, not unique), no edit is applied and the file is unchanged.
- Read the file first, in full, in this conversation. To create a file, make the first edit's old_string empty.`;
