export { BashTool, bashInputSchema, commandFacts, createBashTool, type BashInput } from "./bash-tool.js";
export type { BashToolOptions } from "./execute.js";
export type { BashOutput } from "./result.js";
export { bashLimitsFromEnv, type BashLimits } from "./config.js";
export { sandboxConfigFromEnv, type SandboxConfig } from "./sandbox.js";
