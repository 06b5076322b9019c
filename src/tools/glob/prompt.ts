export const GLOB_TOOL_NAME = "Glob";

export const GLOB_MAX_RESULTS = 100;

export const GLOB_DESCRIPTION = `Fast file pattern matching that works with any codebase size.
- Supports glob patterns like "**/*.js", "src/**/*.{ts,tsx}" or "!(*.test).ts": \`*\` stays inside one folder, \`**\` crosses folders, braces and extglobs work. A pattern with no slash, such as "*.md", matches that name in every folder below the search path.
- Gives back the matching paths ordered by last modification, oldest first, at most ${GLOB_MAX_RESULTS}; paths inside the working directory are shown relative to it.
- Hidden files are included; .gitignore is not applied; version-control folders (.git, .svn, .hg, .bzr, .jj, .sl) are skipped.
- \`path\` is the directory to search in (default: the current working directory). Omit it to use the default; do not pass "undefined" or "null".
- Reach for it to locate files by their names; to look inside files, use Grep.
- When you are doing an open-ended search that may require multiple rounds of globbing and grepping, run several searches in parallel in one response.`;
