export { createWebFetchTool, WebFetchTool, webFetchInputSchema, type WebFetchData, type WebFetchInput, type WebFetchOptions, type WebFetchSummarizer } from "./web-fetch-tool.js";
export { nonPublicReason } from "./address-guard.js";
export { WEB_FETCH_TOOL_NAME } from "./prompt.js";
