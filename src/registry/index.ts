export { findToolByName, toolMatchesName } from "./find-tool.js";
export { assembleToolPool, getTools, selectBaseTools, isDeniedOutright } from "./pool.js";
export type { ToolRegistration, FeatureFlags } from "./pool.js";
export {
  toolJsonSchema,
  toolDefinitions,
  anthropicToolDefinitions,
  openAIToolDefinitions,
  isSchemaLoaded,
} from "./definitions.js";
export type { AnthropicToolDefinition, OpenAIToolDefinition, JsonSchema, JsonObjectSchema, Provider } from "./definitions.js";
