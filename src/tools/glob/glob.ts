import { stat } from "node:fs/promises";
import { z } from "zod";
import { buildTool } from "../../tool/build-tool.js";
import type { Tool, ToolResultBlock, ToolUseContext, ValidationResult } from "../../tool/types.js";
import { readDenyFilter } from "../search/deny.js";
import { displayPath, resolveSearchPath } from "../search/paths.js";
import { crawlGlob, planGlob } from "./crawl.js";
import { GLOB_DESCRIPTION, GLOB_MAX_RESULTS, GLOB_TOOL_NAME } from "./prompt.js";

export const globInputSchema = z.object({
  pattern: z.string().describe("Pattern the file paths must fit, e.g. \"**/*.ts\" or \"*.md\""),
  path: z
    .string()
    .optional()
    .describe(
      'Folder to look in; leave the key out to search the working directory (never send the strings "undefined" or "null"). When given it has to name an existing folder.',
    ),
});

export type GlobInput = z.infer<typeof globInputSchema>;

export interface GlobOutput {
  durationMs: number;
  /** Paths returned (at most 100), relative to the cwd when inside it. */
  filenames: string[];
  numFiles: number;
  /** More files matched than were returned. */
  truncated: boolean;
  totalMatches: number;
}

export interface GlobToolOptions {
  /** Results per call (default 100). */
  maxResults?: number;
  /** A crawl that takes longer is stopped with an error (default 20 s). */
  timeoutMs?: number;
}

export function createGlobTool(options: GlobToolOptions = {}): Tool<typeof globInputSchema, GlobOutput> {
  const maxResults = options.maxResults ?? GLOB_MAX_RESULTS;
  const timeoutMs = options.timeoutMs ?? 20_000;
  return buildTool({
    name: GLOB_TOOL_NAME,
    description: GLOB_DESCRIPTION,
    searchHint: "find files by name pattern glob wildcard",
    inputSchema: globInputSchema,
    isConcurrencySafe: () => true,
    isReadOnly: () => true,

    async validateInput(input, context): Promise<ValidationResult> {
      if (input.pattern.includes("\0") || (input.path ?? "").includes("\0")) {
        return invalid("The pattern or path contains a NUL byte, which no file name can contain. Remove it and try again.", "nul-byte");
      }
      if (input.pattern.trim() === "") return invalid('The pattern is empty. Pass a glob such as "**/*.ts".', "empty-pattern");
      const dir = resolveSearchPath(input.path, context.workspace.cwd);
      const info = await stat(dir).catch(() => undefined);
      if (!info) {
        return invalid(`Directory does not exist: ${input.path}. Current working directory: ${context.workspace.cwd}. Pass an existing directory as path, or omit path to search the working directory.`, "missing-path");
      }
      if (!info.isDirectory()) {
        return invalid(`Path is not a directory: ${input.path}. Glob searches inside a directory: pass its folder as path, or use Read to open this file.`, "not-a-directory");
      }
      return { result: true };
    },

    backfillObservableInput(input, context) {
      return { ...input, path: resolveSearchPath(input.path, context.workspace.cwd) };
    },

    permissionSubject(input, context) {
      const dir = resolveSearchPath(input.path, context.workspace.cwd);
      return { kind: "file", access: "read", paths: [planGlob(input.pattern, dir).root] };
    },

    async call(input, context: ToolUseContext) {
      const started = performance.now();
      const cwd = context.workspace.cwd;
      const plan = planGlob(input.pattern, resolveSearchPath(input.path, cwd));
      const rootInfo = await stat(plan.root).catch(() => undefined);
      // Read deny rules hide files below an allowed root: denied folders are never entered, denied files never listed.
      const deny = readDenyFilter(context);
      if (!rootInfo?.isDirectory() || deny?.denies(plan.root)) {
        return { data: { durationMs: Math.round(performance.now() - started), filenames: [], numFiles: 0, truncated: false, totalMatches: 0 } };
      }
      // A private signal: aborts with the call, or when the crawl takes too long.
      const controller = new AbortController();
      const parent = context.abortController.signal;
      const onAbort = (): void => controller.abort(parent.reason);
      parent.addEventListener("abort", onAbort, { once: true });
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort(new Error("timeout"));
      }, timeoutMs);
      try {
        if (parent.aborted) onAbort();
        const { matches, total } = await crawlGlob(plan, maxResults, controller.signal, deny && ((path, kind) => deny.denies(path, kind)));
        const filenames = matches.map((m) => displayPath(m.path, cwd));
        return {
          data: { durationMs: Math.round(performance.now() - started), filenames, numFiles: filenames.length, truncated: total > filenames.length, totalMatches: total },
        };
      } catch (err) {
        if (timedOut && !parent.aborted) {
          throw new Error(`Glob did not finish within ${timeoutMs / 1000} s in ${plan.root}. Use a more specific path or pattern.`);
        }
        throw err;
      } finally {
        clearTimeout(timer);
        parent.removeEventListener("abort", onAbort);
      }
    },

    mapToolResultToToolResultBlockParam(data, toolUseId): ToolResultBlock {
      return { type: "tool_result", tool_use_id: toolUseId, content: formatGlobResult(data) };
    },

    getToolUseSummary: (input) => (input.path ? `${input.pattern} in ${input.path}` : input.pattern),
  });
}

export function formatGlobResult(data: GlobOutput): string {
  if (data.numFiles === 0) return "No files found";
  const lines = [...data.filenames];
  if (data.truncated) {
    // The reference's note (probe g3#5).
    const more = data.totalMatches - data.numFiles;
    lines.push(`(Showing ${data.numFiles} of ${data.totalMatches} matching files; ${more} more are not listed. Narrow the pattern or path to see the rest.)`);
  }
  return lines.join("\n");
}

function invalid(message: string, errorCode: string): ValidationResult {
  return { result: false, message, errorCode };
}

export const globTool = createGlobTool();
