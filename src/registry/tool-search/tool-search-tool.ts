import { z } from "zod";
import { isDeferredTool } from "../deferral.js";
import { buildTool } from "../../tool/build-tool.js";
import type { Tool, ToolResultBlock, ToolUseContext } from "../../tool/types.js";
import {
  MAX_RESULTS_DESCRIPTION,
  NO_MATCHES,
  QUERY_DESCRIPTION,
  TOOL_SEARCH_DESCRIPTION,
  TOOL_SEARCH_TOOL_NAME,
} from "./prompt.js";
import { parseQuery, rankEntries, searchEntry, selectNames, type SearchEntry } from "./search.js";

export const toolSearchInputSchema = z.object({
  query: z.string().describe(QUERY_DESCRIPTION),
  max_results: z.number().default(5).describe(MAX_RESULTS_DESCRIPTION),
});

export type ToolSearchInput = z.infer<typeof toolSearchInputSchema>;

export interface ToolSearchData {
  matches: string[];
  query: string;
  total_deferred_tools: number;
}

const entries = new WeakMap<Tool, SearchEntry>();

async function entryFor(tool: Tool, context: ToolUseContext): Promise<SearchEntry> {
  let entry = entries.get(tool);
  if (!entry) {
    let description = "";
    try {
      // Most descriptions are plain strings: no await (a thousand of them otherwise cost a microtask each).
      const d = tool.description(context);
      description = typeof d === "string" ? d : await d;
    } catch {
      description = "";
    }
    entry = searchEntry(tool, description);
    entries.set(tool, entry);
  }
  return entry;
}

/** The deferred tools of the context's pool (loaded ones included: loading again is harmless). */
export function deferredToolsOf(context: ToolUseContext): Tool[] {
  return context.options.tools.filter((t) => isDeferredTool(t, context.options));
}

interface PoolIndex {
  deferred: Tool[];
  entries: SearchEntry[] | undefined;
}

/** Per pool (the tools array and its deferred set, both replaced when the pool changes): the deferred tools and their entries. */
const poolIndexes = new WeakMap<readonly Tool[], WeakMap<object, PoolIndex>>();
const NO_SET = {};

function poolIndex(context: ToolUseContext): PoolIndex {
  const tools = context.options.tools;
  let bySet = poolIndexes.get(tools);
  if (!bySet) {
    bySet = new WeakMap();
    poolIndexes.set(tools, bySet);
  }
  const key = context.options.deferredTools ?? NO_SET;
  let index = bySet.get(key);
  if (!index) {
    index = { deferred: deferredToolsOf(context), entries: undefined };
    bySet.set(key, index);
  }
  return index;
}

/** Finds deferred tools for a query; the pure part of ToolSearch (exported for the benchmark). */
export async function searchDeferredTools(query: string, maxResults: number, context: ToolUseContext): Promise<ToolSearchData> {
  const index = poolIndex(context);
  const deferred = index.deferred;
  const parsed = parseQuery(query);
  let matches: string[];
  if (parsed.kind === "select") {
    matches = selectNames(parsed.names, deferred);
  } else {
    if (!index.entries) {
      const list: SearchEntry[] = [];
      for (const tool of deferred) list.push(entries.get(tool) ?? (await entryFor(tool, context)));
      index.entries = list;
    }
    matches = rankEntries(index.entries, parsed, Math.floor(maxResults));
  }
  return { matches, query, total_deferred_tools: deferred.length };
}

export function createToolSearchTool(): Tool<typeof toolSearchInputSchema, ToolSearchData> {
  return buildTool({
    name: TOOL_SEARCH_TOOL_NAME,
    searchHint: "find load deferred tool schemas",
    inputSchema: toolSearchInputSchema,
    description: TOOL_SEARCH_DESCRIPTION,
    maxResultSizeChars: 100_000,
    isConcurrencySafe: () => true,
    isReadOnly: () => true,
    checkPermissions: () => ({ behavior: "allow" }),

    validateInput(input) {
      if (input.query.trim() === "") {
        return { result: false, message: 'Give a query: "select:<tool name>" or a few keywords.', errorCode: "empty_query" };
      }
      if (!(input.max_results >= 1)) {
        return { result: false, message: "max_results must be at least 1.", errorCode: "bad_max_results" };
      }
      return { result: true };
    },

    async call(input, context) {
      const data = await searchDeferredTools(input.query, input.max_results, context);
      if (data.matches.length === 0) return { data };
      const loaded = data.matches;
      return {
        data,
        contextModifier: (ctx) => ({
          ...ctx,
          options: { ...ctx.options, loadedDeferredTools: new Set([...ctx.options.loadedDeferredTools, ...loaded]) },
        }),
      };
    },

    mapToolResultToToolResultBlockParam(data, toolUseId): ToolResultBlock {
      if (data.matches.length === 0) return { type: "tool_result", tool_use_id: toolUseId, content: NO_MATCHES };
      return {
        type: "tool_result",
        tool_use_id: toolUseId,
        content: data.matches.map((name) => ({ type: "tool_reference" as const, tool_name: name })),
      };
    },
  });
}

export const ToolSearchTool = createToolSearchTool();
