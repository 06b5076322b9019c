export { persistOversizedResult, resultTextLength, previewOf, formatSize, resultFileName, PREVIEW_BYTES } from "./persist.js";
export { TurnBudget, DEFAULT_TURN_BUDGET_CHARS } from "./turn-budget.js";
