export const GREP_TOOL_NAME = "Grep";

export const GREP_DEFAULT_HEAD_LIMIT = 250;

export const GREP_DESCRIPTION = `A powerful search tool built on ripgrep.

Usage:
- ALWAYS use Grep for search tasks. NEVER invoke \`grep\` or \`rg\` as a Bash command: this tool has been optimized for correct permissions and access.
- Takes any regular expression (e.g. "TODO.*later", "class\\s+[A-Z]\\w*"). Pattern syntax is ripgrep's (Rust regex), not grep's: literal braces need escaping (use \`interface\\{\\}\` to find \`interface{}\` in Go code).
- Filter files with the glob parameter (e.g. "*.js", "**/*.tsx", "*.{ts,tsx}") or the type parameter (e.g. "js", "py", "rust"). type is more efficient than glob for standard file types.
- Output modes: "files_with_matches" (the default) lists the paths of files with a hit, newest first; "content" prints hit lines as path:line:text, where -A/-B/-C context, -n and -o (only the matched part) apply; "count" prints hits per file.
- Results are paginated: head_limit (default ${GREP_DEFAULT_HEAD_LIMIT}; 0 for all) limits lines, files or count entries, and offset skips that many entries first. The result says when it was paginated; ask for the next page with offset.
- By default patterns match within single lines only. For patterns that span lines, like \`struct \\{[\\s\\S]*?field\`, use multiline: true.
- Searches hidden files; skips files ignored by .gitignore and version-control folders (.git, .svn, .hg, .bzr, .jj, .sl).
- Use the Agent tool for open-ended searches that need several rounds of searching.`;
