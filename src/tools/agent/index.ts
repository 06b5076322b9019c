export { AgentTool, agentInputSchema, createAgentTool, type AgentInput, type AgentToolData, type AgentToolOptions } from "./agent-tool.js";
export { BUILTIN_AGENTS, loadAgentDefinitions, parseAgentFile, type AgentDefinition, type LoadedAgents } from "./agent-types.js";
export { AGENT_TOOL_NAME } from "./prompt.js";
