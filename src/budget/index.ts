export { persistOversizedResult, resultTextLength, previewOf, formatSize, persistedOutputText, resultFileName, PREVIEW_BYTES } from "./persist.js";
export { TurnBudget, DEFAULT_TURN_BUDGET_CHARS } from "./turn-budget.js";
export { ConversationBudget, DEFAULT_CONVERSATION_BUDGET_CHARS, COMPACTED_MARKER, type ConversationBudgetOptions, type CompactionReport } from "./conversation-budget.js";
