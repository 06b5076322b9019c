export const READ_TOOL_NAME = "Read";

export function readDescription(maxLines: number, maxLineChars: number): string {
  return `Reads a file from the local filesystem.

Usage:
- file_path should be an absolute path; a relative path is taken from the current working directory, and ~ is your home folder.
- By default it reads up to ${maxLines} lines from the start of the file. For long files pass offset (the 1-based line to start at) and limit (how many lines); otherwise read the whole file.
- Lines longer than ${maxLineChars} characters are cut.
- Results come as line number, a tab, then the line, numbered from 1. When a window stops early, the result says which offset to continue from.
- It shows images (png, jpg, gif, webp) to you as images, PDFs as text per page (a PDF over 10 pages needs pages, e.g. "1-5"; at most 20 pages a call), and Jupyter notebooks (.ipynb) as cells with their outputs.
- It reads files, not directories: to list a directory use Glob.
- Binary files and devices (such as /dev/zero or a FIFO) are refused.
- Read a file before you Edit or Write it; after an edit there is no need to read it again to check.
- You can call it several times in one message to read several files at once.`;
}
