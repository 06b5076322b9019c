export {
  createEnterPlanModeTool,
  createExitPlanModeTool,
  EnterPlanModeTool,
  enterPlanModeInputSchema,
  ExitPlanModeTool,
  exitPlanModeInputSchema,
  type EnterPlanModeData,
  type ExitPlanModeData,
} from "./plan-mode-tools.js";
export { ENTER_PLAN_MODE_TOOL_NAME, EXIT_PLAN_MODE_TOOL_NAME } from "./prompt.js";
