import { stat } from "node:fs/promises";
import { z } from "zod";
import { buildTool } from "../../tool/build-tool.js";
import type { Tool, ToolResultBlock, ToolUseContext, ValidationResult } from "../../tool/types.js";
import { comparePathsDepthFirst, displayPath, resolveSearchPath } from "../search/paths.js";
import { readDenyFilter } from "../search/deny.js";
import { splitGlobs } from "./args.js";
import { createBuiltinEngine } from "./builtin/engine.js";
import { withReadDenyRules } from "./deny.js";
import { formatGrepResult, paginate, type GrepOutput } from "./format.js";
import { GREP_DEFAULT_HEAD_LIMIT, GREP_DESCRIPTION, GREP_TOOL_NAME } from "./prompt.js";
import { createRipgrepEngine, findExecutable } from "./ripgrep.js";
import { trustedExecutable } from "../../sandbox/trusted-executable.js";
import { GrepSearchError, type GrepEngine, type GrepEntry, type GrepQuery } from "./types.js";

const count = z.number().int().min(0);

export const grepInputSchema = z.object({
  pattern: z.string().describe("Regular expression to look for inside files (ripgrep syntax)"),
  path: z.string().optional().describe("A file or a folder to search (rg PATH); the working directory when left out."),
  glob: z.string().optional().describe('Only search files whose names fit this glob, such as "*.py" or "*.{ts,tsx}" (rg --glob)'),
  output_mode: z
    .enum(["content", "files_with_matches", "count"])
    .optional()
    .describe('What to return: "files_with_matches" (the default) lists the paths of files with a hit; "content" gives the hit lines themselves, where -A/-B/-C, -n and -o apply; "count" gives hits per file. head_limit and offset page through any of them.'),
  "-B": count.optional().describe('Lines of leading context above every hit (rg -B); only used with output_mode "content".'),
  "-A": count.optional().describe('Lines of trailing context below every hit (rg -A); only used with output_mode "content".'),
  "-C": count.optional().describe('Lines of context on both sides of every hit (rg -C); only used with output_mode "content".'),
  context: count.optional().describe('Another name for -C: context lines on both sides of a hit; only used with output_mode "content".'),
  "-n": z.boolean().optional().describe('Prefix each hit with its line number (rg -n); on unless set to false; only used with output_mode "content".'),
  "-i": z.boolean().optional().describe("Case insensitive search (rg -i)"),
  "-o": z.boolean().optional().describe('Print only the matched parts of lines (rg -o). Requires output_mode: "content", ignored otherwise.'),
  type: z.string().optional().describe("Restrict the search to one ripgrep file type (rg --type), e.g. js, py, rust, go, java; for well-known languages this is quicker than a glob."),
  head_limit: count
    .optional()
    .describe(`Keep at most N result lines or entries, whatever the mode (think "| head -N"). ${GREP_DEFAULT_HEAD_LIMIT} when left out; 0 means no cap, which can flood your context, so use it rarely.`),
  offset: count.optional().describe('Drop this many result lines or entries before head_limit is applied, in any mode (think "| tail -n +N"); 0 when left out. Use it to fetch the next page.'),
  multiline: z.boolean().optional().describe("true lets a match run across line breaks, with . also matching a newline (rg -U --multiline-dotall); off by default."),
});

export type GrepInput = z.infer<typeof grepInputSchema>;

export interface GrepToolOptions {
  /**
   * The ripgrep binary: a path or a name looked up on PATH; `false` always uses the built-in
   * search. Default: env `ARMATURE_RIPGREP` (`0`/`false`/`off` = built-in, anything else = the
   * binary), else `rg` on PATH. When the binary is not found the built-in search is used.
   */
  ripgrep?: string | false;
}

/** Content mode keeps at most this much text in memory (head_limit 0 or a huge one). */
const MAX_CONTENT_CHARS = 10_000_000;
const STAT_CONCURRENCY = 64;
const NOTICE_KEY = "armature.grep.builtinNoticeShown";
export const BUILTIN_NOTICE =
  "(Note: ripgrep (rg) is not available, so Grep used its built-in search: same options and output, but slower on large trees, and the global git excludes file is not read.)";

export function createGrepTool(options: GrepToolOptions = {}): Tool<typeof grepInputSchema, GrepOutput> {
  let engine: GrepEngine | undefined;
  const getEngine = (): GrepEngine => (engine ??= selectEngine(options.ripgrep));
  return buildTool({
    name: GREP_TOOL_NAME,
    description: GREP_DESCRIPTION,
    searchHint: "search file contents regex ripgrep",
    inputSchema: grepInputSchema,
    maxResultSizeChars: 20_000,
    isConcurrencySafe: () => true,
    isReadOnly: () => true,

    async validateInput(input, context): Promise<ValidationResult> {
      if (input.pattern.includes("\0") || (input.path ?? "").includes("\0") || (input.glob ?? "").includes("\0")) {
        return { result: false, message: "The pattern, path or glob contains a NUL byte. Remove it and try again.", errorCode: "nul-byte" };
      }
      const path = resolveSearchPath(input.path, context.workspace.cwd);
      const info = await stat(path).catch(() => undefined);
      if (!info) {
        return {
          result: false,
          message: `Path does not exist: ${input.path}. Current working directory: ${context.workspace.cwd}. Pass an existing file or directory, or omit path to search the working directory.`,
          errorCode: "missing-path",
        };
      }
      if (!info.isFile() && !info.isDirectory()) {
        return {
          result: false,
          message: `Path is not a regular file or directory: ${input.path}. Grep searches files and folders; devices, FIFOs and sockets could block it forever.`,
          errorCode: "not-searchable",
        };
      }
      return { result: true };
    },

    backfillObservableInput(input, context) {
      return { ...input, path: resolveSearchPath(input.path, context.workspace.cwd) };
    },

    permissionSubject(input, context) {
      return { kind: "file", access: "read", paths: [resolveSearchPath(input.path, context.workspace.cwd)] };
    },

    async call(input, context) {
      const selected = getEngine();
      const data = await runGrep(selected, input, context);
      if (selected.name === "builtin" && context.extensions.get(NOTICE_KEY) !== true) {
        context.extensions.set(NOTICE_KEY, true);
        data.notice = BUILTIN_NOTICE;
      }
      return { data };
    },

    mapToolResultToToolResultBlockParam(data, toolUseId): ToolResultBlock {
      return { type: "tool_result", tool_use_id: toolUseId, content: formatGrepResult(data) };
    },

    getToolUseSummary: (input) => (input.path ? `"${input.pattern}" in ${input.path}` : `"${input.pattern}"`),
  });
}

function selectEngine(setting: string | false | undefined): GrepEngine {
  let choice = setting;
  if (choice === undefined) {
    const env = process.env.ARMATURE_RIPGREP;
    if (env !== undefined && env !== "") choice = ["0", "false", "off", "no"].includes(env.toLowerCase()) ? false : env;
  }
  if (choice === false) return createBuiltinEngine();
  // A bare name only from the system directories: a project's node_modules/.bin/rg is not ripgrep.
  const binary = choice === undefined || !choice.includes("/") ? trustedExecutable(choice ?? "rg") : findExecutable(choice);
  return binary ? createRipgrepEngine(binary) : createBuiltinEngine();
}

async function runGrep(selected: GrepEngine, input: GrepInput, context: ToolUseContext): Promise<GrepOutput> {
  const cwd = context.workspace.cwd;
  const root = resolveSearchPath(input.path, cwd);
  const mode = input.output_mode ?? "files_with_matches";
  const contextLines = input.context ?? input["-C"];
  const query: GrepQuery = {
    pattern: input.pattern,
    root,
    rootIsFile: !(await stat(root)).isDirectory(),
    mode,
    caseInsensitive: input["-i"] ?? false,
    onlyMatching: input["-o"] ?? false,
    multiline: input.multiline ?? false,
    before: contextLines ?? input["-B"] ?? 0,
    after: contextLines ?? input["-A"] ?? 0,
    globs: splitGlobs(input.glob),
    signal: context.abortController.signal,
  };
  if (input.type !== undefined && input.type !== "") query.type = input.type;
  const engine = withReadDenyRules(selected, query, readDenyFilter(context));
  const offset = input.offset ?? 0;
  const limit = input.head_limit ?? GREP_DEFAULT_HEAD_LIMIT;
  const base = { mode, engine: engine.name } as const;

  if (mode === "content") {
    const showNumbers = input["-n"] ?? true;
    // Entries before `offset` are only counted; one entry past the page tells whether there is more.
    const wanted = limit === 0 ? Infinity : offset + limit + 1;
    const kept: Array<{ line: string; path?: string }> = [];
    let seen = 0;
    let chars = 0;
    let capped = false;
    let lastPath = "";
    let lastShown = "";
    await search(engine, query, (entry) => {
      seen++;
      if (seen > offset) {
        if (entry.kind === "separator") kept.push({ line: "--" });
        else {
          if (entry.path !== lastPath) {
            lastPath = entry.path;
            // Searching one file, rg prints no file name; the reference shows its lines bare.
            lastShown = query.rootIsFile ? "" : displayPath(entry.path, cwd);
          }
          const line = entry.kind === "note" ? `${displayPath(entry.path, cwd)}: ${entry.text}` : entry.kind === "line" ? formatLine(entry, lastShown, showNumbers) : "";
          kept.push({ line, path: displayPath(entry.path, cwd) });
          chars += line.length + 1;
          // Bounded memory whatever head_limit says; past 20,000 characters the result is persisted anyway.
          if (chars > MAX_CONTENT_CHARS) capped = true;
        }
      }
      return seen < wanted && !capped;
    });
    const { page, truncated } = paginate(kept, 0, limit);
    const files = new Set<string>();
    for (const e of page) if (e.path !== undefined) files.add(e.path);
    const data: GrepOutput = { ...base, numFiles: files.size, filenames: [...files], content: page.map((e) => e.line).join("\n"), numLines: page.length };
    return withPagination(data, seen, page.length, offset, limit, truncated, capped);
  }

  const found: GrepEntry[] = [];
  await search(engine, query, (entry) => {
    found.push(entry);
    return true;
  });

  if (mode === "count") {
    const counts = found.filter((e): e is Extract<GrepEntry, { kind: "count" }> => e.kind === "count");
    counts.sort((a, b) => comparePathsDepthFirst(a.path, b.path));
    const { page, truncated } = paginate(counts, offset, limit);
    const data: GrepOutput = {
      ...base,
      numFiles: page.length,
      filenames: page.map((c) => displayPath(c.path, cwd)),
      content: page.map((c) => `${displayPath(c.path, cwd)}:${c.count}`).join("\n"),
      numMatches: page.reduce((sum, c) => sum + c.count, 0),
      // The reference's summary line counts every file, not only this page.
      totalMatches: counts.reduce((sum, c) => sum + c.count, 0),
      totalFiles: counts.length,
    };
    return withPagination(data, counts.length, page.length, offset, limit, truncated, false);
  }

  const paths = found.flatMap((e) => (e.kind === "file" ? [e.path] : []));
  const stamped = await modificationTimes(paths);
  stamped.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const { page, truncated } = paginate(stamped, offset, limit);
  const filenames = page.map((f) => displayPath(f.path, cwd));
  return withPagination({ ...base, numFiles: filenames.length, filenames }, stamped.length, page.length, offset, limit, truncated, false);
}

function withPagination(data: GrepOutput, total: number, shown: number, offset: number, limit: number, truncated: boolean, capped: boolean): GrepOutput {
  if (truncated) data.appliedLimit = limit;
  if (offset > 0) data.appliedOffset = offset;
  if (shown === 0 && total > 0) data.totalEntries = total;
  if (capped) data.outputCapped = true;
  return data;
}

/** Runs the engine; a refused search (bad regex, glob, type) becomes an error with the engine's words. */
async function search(engine: GrepEngine, query: GrepQuery, sink: (entry: GrepEntry) => boolean): Promise<void> {
  try {
    await engine.search(query, sink);
  } catch (err) {
    if (err instanceof GrepSearchError) throw new Error(`${SEARCH_FAILED}\nrg: ${err.message}`);
    throw err;
  }
}

/** `path:line:text` for matches, `path-line-text` for context (numbers dropped when -n is false). */
function formatLine(entry: Extract<GrepEntry, { kind: "line" }>, path: string, showNumbers: boolean): string {
  const sep = entry.match ? ":" : "-";
  const prefix = path === "" ? "" : `${path}${sep}`;
  return showNumbers ? `${prefix}${entry.line}${sep}${entry.text}` : `${prefix}${entry.text}`;
}

/** The reference's first line when rg refuses a search before it starts. */
const SEARCH_FAILED = "Search failed — ripgrep rejected the pattern, glob, or file type without searching:";

async function modificationTimes(paths: readonly string[]): Promise<Array<{ path: string; mtimeMs: number }>> {
  const out: Array<{ path: string; mtimeMs: number }> = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < paths.length) {
      const path = paths[next++]!;
      const info = await stat(path).catch(() => undefined);
      out.push({ path, mtimeMs: info?.mtimeMs ?? 0 });
    }
  };
  await Promise.all(Array.from({ length: Math.min(STAT_CONCURRENCY, paths.length) }, worker));
  return out;
}

export const grepTool = createGrepTool();
