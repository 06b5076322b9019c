import { z } from "zod";
import { buildTool } from "../../tool/build-tool.js";
import type { Tool } from "../../tool/types.js";
import type { WebSearchBackend, WebSearchHit } from "./backend.js";
import { WEB_SEARCH_DESCRIPTION, WEB_SEARCH_REMINDER, WEB_SEARCH_TOOL_NAME } from "./prompt.js";

export const webSearchInputSchema = z.object({
  query: z.string().min(2).describe("The search query"),
  allowed_domains: z.array(z.string()).optional().describe("Only include results from these domains"),
  blocked_domains: z.array(z.string()).optional().describe("Never include results from these domains"),
});

export type WebSearchInput = z.infer<typeof webSearchInputSchema>;

export interface WebSearchData {
  query: string;
  /** The reference's shape: one entry per backend search with its hits, then the summary texts. */
  results: Array<{ tool_use_id: string; content: WebSearchHit[] } | string>;
  durationSeconds: number;
  searchCount: number;
}

export interface WebSearchToolOptions {
  backend: WebSearchBackend;
  /** Calls one session may make (default 200, as the reference). */
  maxCallsPerSession?: number;
}

const DOMAIN = /^(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)+$/i;

/** WebSearch with the given backend. Without a backend there is no WebSearch tool at all. */
export function createWebSearchTool(options: WebSearchToolOptions): Tool<typeof webSearchInputSchema, WebSearchData> {
  const maxCalls = options.maxCallsPerSession ?? 200;
  const callsBySession = new Map<string, number>();
  return buildTool({
    name: WEB_SEARCH_TOOL_NAME,
    searchHint: "search the web internet current information",
    inputSchema: webSearchInputSchema,
    description: WEB_SEARCH_DESCRIPTION,
    shouldDefer: true,
    maxResultSizeChars: 100_000,
    // The query leaves the machine: it asks unless a WebSearch rule allows it.
    isReadOnly: () => false,
    isConcurrencySafe: () => true,
    validateInput(input, context) {
      if (input.allowed_domains?.length && input.blocked_domains?.length) {
        return { result: false, message: "Give allowed_domains or blocked_domains, not both in one call.", errorCode: "both_domain_lists" };
      }
      const bad = [...(input.allowed_domains ?? []), ...(input.blocked_domains ?? [])].find((d) => !DOMAIN.test(d));
      if (bad !== undefined) return { result: false, message: `"${bad}" is not a domain name (e.g. example.com or *.example.com).`, errorCode: "bad_domain" };
      if ((callsBySession.get(context.session.id) ?? 0) >= maxCalls) {
        return { result: false, message: `This session has used its ${maxCalls} web searches. Work with what you have found.`, errorCode: "search_cap" };
      }
      return { result: true };
    },

    async call(input, context) {
      callsBySession.set(context.session.id, (callsBySession.get(context.session.id) ?? 0) + 1);
      const started = Date.now();
      const found = await options.backend.search({
        query: input.query,
        ...(input.allowed_domains ? { allowedDomains: input.allowed_domains } : {}),
        ...(input.blocked_domains ? { blockedDomains: input.blocked_domains } : {}),
        signal: context.abortController.signal,
      });
      return {
        data: {
          query: input.query,
          results: [...found.searches.map((s) => ({ tool_use_id: s.id, content: s.hits })), ...found.text],
          durationSeconds: (Date.now() - started) / 1000,
          searchCount: found.searches.length,
        },
      };
    },

    mapToolResultToToolResultBlockParam(data, toolUseId) {
      const parts = [`Web search results for query: "${data.query}"`];
      for (const r of data.results) parts.push(typeof r === "string" ? r : `Links: ${JSON.stringify(r.content)}`);
      return { type: "tool_result", tool_use_id: toolUseId, content: `${parts.join("\n\n")}\n\n\n${WEB_SEARCH_REMINDER}` };
    },
  });
}
