export { fromOpenAIToolCalls, toOpenAIToolMessages, toolResultText } from "./openai.js";
export type { OpenAIAssistantMessage, OpenAIToolCall, OpenAIFunctionToolCall, OpenAICustomToolCall, OpenAIToolMessage } from "./openai.js";
export { parseTurn, parseTurnsFile, TurnParseError } from "./turns.js";
export type { ParsedTurn, TurnShape } from "./turns.js";
