export { fromOpenAIToolCalls, toOpenAIToolMessages, toolResultText } from "./openai.js";
export type { OpenAIAssistantMessage, OpenAIToolCall, OpenAIToolMessage } from "./openai.js";
export { parseTurn, parseTurnsFile, TurnParseError } from "./turns.js";
export type { ParsedTurn, TurnShape } from "./turns.js";
export * from "./model.js";
export { AnthropicProvider, anthropicRequestBody, withLastBreakpoint } from "./anthropic.js";
export { OpenAIChatProvider, toChatMessages, chatTools } from "./openai-chat.js";
export { OpenAIResponsesProvider, toResponsesInput, responsesTools } from "./openai-responses.js";
export { createProvider, resolveProviderConfig, PROVIDER_NAMES, type ProviderName, type ProviderConfig } from "./create-provider.js";
