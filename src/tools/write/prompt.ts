export const WRITE_TOOL_NAME = "Write";

export const WRITE_DESCRIPTION = `Creates a file, or replaces one, with exactly the content you give.

Usage:
- This tool overwrites the existing file if there is one at the path. To overwrite a file, you must Read it (in full) in this conversation first, and it must not have changed since; otherwise the write is refused.
- Missing parent folders are created.
- An existing file keeps its encoding and byte-order mark; the content is written as given otherwise.
- Prefer Edit for changes to existing files: it sends only the part that changes.
- Do not create documentation files (*.md, README) unless the user asks for them.`;
