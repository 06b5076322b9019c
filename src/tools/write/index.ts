export { createWriteTool, WriteTool, writeInputSchema } from "./write-tool.js";
export type { WriteInput, WriteOutput, WriteToolOptions } from "./write-tool.js";
