export {
  createToolSearchTool,
  ToolSearchTool,
  toolSearchInputSchema,
  searchDeferredTools,
  deferredToolsOf,
  type ToolSearchData,
  type ToolSearchInput,
} from "./tool-search-tool.js";
export { TOOL_SEARCH_TOOL_NAME } from "./prompt.js";
