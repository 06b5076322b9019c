export { createGlobTool, globTool, globInputSchema, formatGlobResult } from "./glob.js";
export type { GlobInput, GlobOutput, GlobToolOptions } from "./glob.js";
export { planGlob, crawlGlob } from "./crawl.js";
export type { GlobPlan, GlobMatch, GlobCrawlResult } from "./crawl.js";
export { GLOB_TOOL_NAME, GLOB_MAX_RESULTS } from "./prompt.js";
