/** One search hit. */
export interface WebSearchHit {
  title: string;
  url: string;
}

export interface WebSearchRequest {
  query: string;
  allowedDomains?: string[];
  blockedDomains?: string[];
  signal: AbortSignal;
}

/** What a backend found: groups of hits (one per backend search) and any summary text. */
export interface WebSearchResponse {
  searches: Array<{ id: string; hits: WebSearchHit[] }>;
  text: string[];
}

/** Where WebSearch gets its results: the Anthropic server tool, or any search API a host plugs in. */
export interface WebSearchBackend {
  readonly name: string;
  search(request: WebSearchRequest): Promise<WebSearchResponse>;
}

export interface AnthropicWebSearchOptions {
  model: string;
  apiKey?: string;
  baseURL?: string;
  /** Backend searches one call may make (the reference uses 8). */
  maxUses?: number;
  maxTokens?: number;
}

const SEARCH_SYSTEM =
  "You run a web search for another model, which is waiting on the result and can search again. Search once, then reply with a brief summary of the results.";

interface AnthropicBlock {
  type: string;
  id?: string;
  tool_use_id?: string;
  text?: string;
  content?: unknown;
}

/**
 * The Anthropic API's server-side search (`web_search_20250305`), asked the way the reference
 * agent asks it: a separate request whose only tool is the search, one user message with the query.
 */
export function anthropicWebSearch(options: AnthropicWebSearchOptions): WebSearchBackend {
  let client: Promise<{ messages: { create(body: unknown, opts: { signal: AbortSignal }): Promise<{ content: AnthropicBlock[] }> } }> | undefined;
  const getClient = () =>
    (client ??= import("@anthropic-ai/sdk").then(({ default: Anthropic }) => {
      const made = new Anthropic({
        ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
        ...(options.baseURL !== undefined ? { baseURL: options.baseURL } : {}),
      });
      return made as unknown as { messages: { create(body: unknown, opts: { signal: AbortSignal }): Promise<{ content: AnthropicBlock[] }> } };
    }));
  return {
    name: "anthropic",
    async search(request) {
      const tool: Record<string, unknown> = { type: "web_search_20250305", name: "web_search", max_uses: options.maxUses ?? 8 };
      if (request.allowedDomains?.length) tool.allowed_domains = request.allowedDomains;
      if (request.blockedDomains?.length) tool.blocked_domains = request.blockedDomains;
      const api = await getClient();
      const message = await api.messages.create(
        {
          model: options.model,
          max_tokens: options.maxTokens ?? 4096,
          tools: [tool],
          tool_choice: { type: "auto" },
          system: SEARCH_SYSTEM,
          messages: [{ role: "user", content: `Perform a web search for the query: ${request.query}` }],
        },
        { signal: request.signal },
      );
      return fromAnthropicContent(message.content);
    },
  };
}

/** Hits and text out of a reply's content blocks; a search error block becomes text saying so. */
export function fromAnthropicContent(content: readonly AnthropicBlock[]): WebSearchResponse {
  const out: WebSearchResponse = { searches: [], text: [] };
  for (const block of content) {
    if (block.type === "text" && typeof block.text === "string" && block.text.trim() !== "") out.text.push(block.text.trim());
    if (block.type !== "web_search_tool_result") continue;
    const id = block.tool_use_id ?? "";
    if (Array.isArray(block.content)) {
      const hits = block.content
        .filter((r): r is { title: unknown; url: unknown } => typeof r === "object" && r !== null && "url" in r)
        .map((r) => ({ title: String(r.title ?? ""), url: String(r.url) }));
      out.searches.push({ id, hits });
    } else if (typeof block.content === "object" && block.content !== null && "error_code" in block.content) {
      out.text.push(`Web search error: ${String((block.content as { error_code: unknown }).error_code)}`);
    }
  }
  return out;
}
