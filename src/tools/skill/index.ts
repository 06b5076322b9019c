export { createSkillTool, reinvocationNote, skillInputSchema, skillInstructions, skillGrant, SKILL_DESCRIPTION, SKILL_TOOL_NAME } from "./skill-tool.js";
export type { SkillInput, SkillToolData, SkillToolOptions } from "./skill-tool.js";
