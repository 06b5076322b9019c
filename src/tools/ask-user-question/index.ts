export {
  AskUserQuestionTool,
  askUserQuestionInputSchema,
  createAskUserQuestionTool,
  type AskUserQuestionData,
  type AskUserQuestionInput,
} from "./ask-user-question-tool.js";
export { ASK_USER_QUESTION_TOOL_NAME } from "./prompt.js";
