import type { ClientCapabilities, ElicitRequestFormParams, ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import type { ApprovalAnswer, ApprovalRequest } from "../permissions/types.js";
import { ASK_USER_QUESTION_TOOL_NAME } from "../tools/ask-user-question/prompt.js";
import { EXIT_PLAN_MODE_TOOL_NAME } from "../tools/plan-mode/prompt.js";

/**
 * What `mcp serve` asks a client through MCP elicitation: the form for one approval, and how its
 * answer becomes the approver's. AskUserQuestion gets its real options (one choice or several),
 * ExitPlanMode an approve/reject choice with room for feedback, any other call a yes/no. Pure.
 */
export interface ApprovalForm {
  params: ElicitRequestFormParams;
  answer(result: ElicitResult): ApprovalAnswer;
}

type FormSchema = ElicitRequestFormParams["requestedSchema"];
type FormContent = NonNullable<ElicitResult["content"]>;

/** Whether the client can show forms: `elicitation: {}` (the older spelling) or `elicitation: { form }`. */
export function canElicitForms(capabilities: ClientCapabilities | undefined): boolean {
  const elicitation = capabilities?.elicitation as { form?: unknown; url?: unknown } | undefined;
  if (elicitation === undefined) return false;
  return elicitation.form !== undefined || elicitation.url === undefined;
}

const DECLINED = "The user declined this call through the MCP client. Do not retry it as is; ask the user what to do instead.";

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

interface Question {
  question: string;
  header: string;
  options: Array<{ label: string; description: string }>;
  multiSelect: boolean;
}

function questionsOf(input: Record<string, unknown>): Question[] {
  return Array.isArray(input.questions) ? (input.questions as Question[]) : [];
}

function questionForm(request: ApprovalRequest): ApprovalForm {
  const questions = questionsOf(request.input);
  const properties: FormSchema["properties"] = {};
  questions.forEach((q, i) => {
    const choices = q.options.map((o) => ({ const: o.label, title: o.description ? `${o.label}: ${o.description}` : o.label }));
    properties[`q${i}`] = q.multiSelect
      ? { type: "array", title: q.header, description: q.question, minItems: 1, items: { anyOf: choices } }
      : { type: "string", title: q.header, description: q.question, oneOf: choices };
  });
  return {
    params: {
      mode: "form",
      message: questions.length === 1 ? `armature: ${questions[0]!.question}` : `armature: ${questions.length} questions for you`,
      requestedSchema: { type: "object", properties },
    },
    answer(result) {
      if (result.action !== "accept") return { behavior: "deny", message: "The user declined to answer the questions. Continue with what you know, or ask differently.", source: "mcp-elicitation" };
      const content: FormContent = result.content ?? {};
      const answers: Record<string, string> = {};
      questions.forEach((q, i) => {
        const value = content[`q${i}`];
        const chosen = Array.isArray(value) ? value.join(", ") : typeof value === "string" ? value : "";
        if (chosen !== "") answers[q.question] = chosen;
      });
      return { behavior: "allow", updatedInput: { ...request.input, answers }, reason: "Answered through the MCP client", source: "mcp-elicitation" };
    },
  };
}

function planForm(request: ApprovalRequest): ApprovalForm {
  const plan = typeof request.input.plan === "string" ? request.input.plan : undefined;
  return {
    params: {
      mode: "form",
      message: plan !== undefined ? `armature: approve this plan and leave plan mode?\n\n${clip(plan, 20_000)}` : "armature: leave plan mode and start making changes?",
      requestedSchema: {
        type: "object",
        properties: {
          decision: {
            type: "string",
            title: "Plan",
            oneOf: [
              { const: "approve", title: "Approve: leave plan mode and carry it out" },
              { const: "reject", title: "Reject: stay in plan mode and revise it" },
            ],
          },
          feedback: { type: "string", title: "Feedback", description: "What to change (when rejecting)" },
        },
        required: ["decision"],
      },
    },
    answer(result) {
      const content: FormContent = result.content ?? {};
      if (result.action === "accept" && content.decision === "approve") return { behavior: "allow", reason: "Plan approved through the MCP client", source: "mcp-elicitation" };
      const feedback = typeof content.feedback === "string" && content.feedback.trim() !== "" ? ` The user's feedback: ${content.feedback.trim()}` : "";
      return { behavior: "deny", message: `The user rejected the plan; you are still in plan mode. Revise the plan and present it again with ExitPlanMode.${feedback}`, source: "mcp-elicitation" };
    },
  };
}

function callForm(request: ApprovalRequest): ApprovalForm {
  return {
    params: {
      mode: "form",
      message: `armature: ${request.tool.name} needs approval (${request.decision.reason}).\nInput: ${clip(JSON.stringify(request.input), 2_000)}`,
      requestedSchema: { type: "object", properties: { approve: { type: "boolean", title: "Allow this call?" } }, required: ["approve"] },
    },
    answer(result) {
      if (result.action === "accept" && result.content?.approve === true) return { behavior: "allow", reason: "Approved through the MCP client", source: "mcp-elicitation" };
      return { behavior: "deny", message: DECLINED, source: "mcp-elicitation" };
    },
  };
}

export function approvalForm(request: ApprovalRequest): ApprovalForm {
  if (request.tool.name === ASK_USER_QUESTION_TOOL_NAME) return questionForm(request);
  if (request.tool.name === EXIT_PLAN_MODE_TOOL_NAME) return planForm(request);
  return callForm(request);
}
