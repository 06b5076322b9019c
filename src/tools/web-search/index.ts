export { anthropicWebSearch, fromAnthropicContent, type AnthropicWebSearchOptions, type WebSearchBackend, type WebSearchHit, type WebSearchRequest, type WebSearchResponse } from "./backend.js";
export { createWebSearchTool, webSearchInputSchema, type WebSearchData, type WebSearchInput, type WebSearchToolOptions } from "./web-search-tool.js";
export { WEB_SEARCH_TOOL_NAME } from "./prompt.js";
