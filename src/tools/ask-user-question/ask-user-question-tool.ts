import { z } from "zod";
import { buildTool } from "../../tool/build-tool.js";
import type { Tool } from "../../tool/types.js";
import { interactiveToolAvailability } from "../util/interactive.js";
import { ASK_USER_QUESTION_DESCRIPTION, ASK_USER_QUESTION_TOOL_NAME } from "./prompt.js";

const optionSchema = z.object({
  label: z.string().describe("The option as shown (a few words)"),
  description: z.string().describe("What choosing it means"),
  preview: z.string().optional().describe("Optional longer text shown when the option is focused"),
});

const questionSchema = z.object({
  question: z.string().describe("The full question, ending with a question mark"),
  header: z.string().describe("A very short label for the question (a few words)"),
  options: z.array(optionSchema).min(2).max(4).describe("The choices (2 to 4)"),
  multiSelect: z.boolean().describe("Whether several options may be chosen (false: one)"),
});

export const askUserQuestionInputSchema = z.object({
  questions: z.array(questionSchema).min(1).max(4).describe("The questions to ask (1 to 4)"),
  answers: z.record(z.string(), z.string()).optional().describe("Filled in by the host: the answer to each question, by question text"),
  annotations: z
    .record(z.string(), z.object({ preview: z.string().optional(), notes: z.string().optional() }))
    .optional()
    .describe("Filled in by the host: notes the user added per question"),
  metadata: z.object({ source: z.string().optional() }).optional().describe("Where the questions come from, for the host"),
});

export type AskUserQuestionInput = z.infer<typeof askUserQuestionInputSchema>;

export interface AskUserQuestionData {
  questions: AskUserQuestionInput["questions"];
  answers: Record<string, string>;
}

export function createAskUserQuestionTool(): Tool<typeof askUserQuestionInputSchema, AskUserQuestionData> {
  return buildTool({
    name: ASK_USER_QUESTION_TOOL_NAME,
    searchHint: "ask the user a multiple choice question clarify preference",
    inputSchema: askUserQuestionInputSchema,
    description: ASK_USER_QUESTION_DESCRIPTION,
    isReadOnly: () => true,
    requiresUserInteraction: () => true,
    validateInput: (input, context) => {
      const available = interactiveToolAvailability(ASK_USER_QUESTION_TOOL_NAME, context);
      if (!available.result) return available;
      const texts = input.questions.map((q) => q.question);
      if (new Set(texts).size !== texts.length) {
        return { result: false, message: "Each question must be different: two questions have the same text.", errorCode: "duplicate_question" };
      }
      return available;
    },
    // The answer comes through the approval channel: the host answers by allowing the call with
    // `updatedInput.answers` filled in, or declines with a message.
    checkPermissions: (input) => ({
      behavior: "ask",
      message: input.questions.map((q) => q.question).join("\n"),
    }),

    async call(input) {
      const answers = input.answers ?? {};
      const unanswered = input.questions.filter((q) => answers[q.question] === undefined).map((q) => q.question);
      if (unanswered.length === input.questions.length) {
        throw new Error("The user gave no answer. Continue with what you know, or ask again more simply.");
      }
      return { data: { questions: input.questions, answers } };
    },

    mapToolResultToToolResultBlockParam(data, toolUseId) {
      const pairs = data.questions
        .filter((q) => data.answers[q.question] !== undefined)
        .map((q) => `"${q.question}"="${data.answers[q.question]}"`)
        .join(", ");
      return {
        type: "tool_result",
        tool_use_id: toolUseId,
        content: `Your questions have been answered: ${pairs}. You can now continue with these answers in mind.`,
      };
    },
  });
}

export const AskUserQuestionTool = createAskUserQuestionTool();
