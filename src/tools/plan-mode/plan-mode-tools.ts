import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { buildTool } from "../../tool/build-tool.js";
import type { PermissionMode, Tool, ToolUseContext } from "../../tool/types.js";
import { interactiveToolAvailability } from "../util/interactive.js";
import {
  ALLOWED_PROMPTS_DESCRIPTION,
  ENTER_PLAN_MODE_DESCRIPTION,
  ENTER_PLAN_MODE_TOOL_NAME,
  ENTERED_PLAN_MODE_RESULT,
  EXIT_PLAN_MODE_DESCRIPTION,
  EXIT_PLAN_MODE_TOOL_NAME,
  EXITED_PLAN_MODE_REMINDER,
  EXITED_PLAN_MODE_RESULT,
  PLAN_DESCRIPTION,
  PLAN_MODE_REMINDER,
} from "./prompt.js";

/** The mode to go back to when plan mode ends, kept per agent. */
const PREVIOUS_MODE_KEY = "armature.planMode.previous";

function previousModes(context: ToolUseContext): Map<string, PermissionMode> {
  let modes = context.extensions.get(PREVIOUS_MODE_KEY);
  if (!(modes instanceof Map)) {
    modes = new Map<string, PermissionMode>();
    context.extensions.set(PREVIOUS_MODE_KEY, modes);
  }
  return modes as Map<string, PermissionMode>;
}

const agentKey = (context: ToolUseContext): string => context.agent.agentId ?? "main";

function withMode(mode: PermissionMode): (context: ToolUseContext) => ToolUseContext {
  return (context) => ({ ...context, permissionContext: { ...context.permissionContext, mode } });
}

export const enterPlanModeInputSchema = z.object({});

export interface EnterPlanModeData {
  previousMode: PermissionMode;
}

export function createEnterPlanModeTool(): Tool<typeof enterPlanModeInputSchema, EnterPlanModeData> {
  return buildTool({
    name: ENTER_PLAN_MODE_TOOL_NAME,
    searchHint: "plan mode read-only design approach before editing",
    inputSchema: enterPlanModeInputSchema,
    description: ENTER_PLAN_MODE_DESCRIPTION,
    shouldDefer: true,
    isReadOnly: () => true,
    // Its point is the approval on the way out: offered only where someone can approve.
    requiresUserInteraction: () => true,
    validateInput: (_input, context) => {
      const available = interactiveToolAvailability(ENTER_PLAN_MODE_TOOL_NAME, context);
      if (!available.result) return available;
      if (context.permissionContext.mode === "plan") {
        return { result: false, message: "Plan mode is already active. Explore, then present the plan with ExitPlanMode.", errorCode: "already_planning" };
      }
      return available;
    },
    // Entering plan mode only narrows what may run.
    checkPermissions: () => ({ behavior: "allow", reason: "Entering plan mode only restricts what may run" }),

    async call(_input, context) {
      const previousMode = context.permissionContext.mode;
      previousModes(context).set(agentKey(context), previousMode);
      return {
        data: { previousMode },
        newMessages: [{ role: "user", content: PLAN_MODE_REMINDER }],
        contextModifier: withMode("plan"),
      };
    },

    mapToolResultToToolResultBlockParam(_data, toolUseId) {
      return { type: "tool_result", tool_use_id: toolUseId, content: ENTERED_PLAN_MODE_RESULT };
    },
  });
}

export const exitPlanModeInputSchema = z.object({
  plan: z.string().optional().describe(PLAN_DESCRIPTION),
  allowedPrompts: z
    .array(z.object({ tool: z.enum(["Bash"]), prompt: z.string() }))
    .optional()
    .describe(ALLOWED_PROMPTS_DESCRIPTION),
});

export interface ExitPlanModeData {
  plan: string | null;
  isAgent: boolean;
  /** Where the approved plan was saved (in the session folder), or null without a plan. */
  filePath: string | null;
  mode: PermissionMode;
}

export function createExitPlanModeTool(): Tool<typeof exitPlanModeInputSchema, ExitPlanModeData> {
  return buildTool({
    name: EXIT_PLAN_MODE_TOOL_NAME,
    searchHint: "present plan for approval leave plan mode",
    inputSchema: exitPlanModeInputSchema,
    description: EXIT_PLAN_MODE_DESCRIPTION,
    shouldDefer: true,
    isReadOnly: () => true,
    requiresUserInteraction: () => true,
    validateInput: (_input, context) => {
      const available = interactiveToolAvailability(EXIT_PLAN_MODE_TOOL_NAME, context);
      if (!available.result) return available;
      if (context.permissionContext.mode !== "plan") {
        return { result: false, message: "You are not in plan mode. This tool is only for presenting a plan from plan mode.", errorCode: "not_planning" };
      }
      return available;
    },
    // Leaving plan mode always reaches the human: the approval IS the point of the tool.
    checkPermissions: (input) => ({
      behavior: "ask",
      message: input.plan !== undefined ? `Approve this plan and leave plan mode?\n\n${input.plan}` : "Leave plan mode and start making changes?",
    }),

    async call(input, context) {
      const modes = previousModes(context);
      const key = agentKey(context);
      // Back to the mode plan mode was entered from; a run that started in plan mode goes to default.
      const mode = modes.get(key) ?? "default";
      modes.delete(key);
      let filePath: string | null = null;
      if (input.plan !== undefined) {
        const dir = join(context.session.dir, "plans");
        await mkdir(dir, { recursive: true });
        filePath = join(dir, `${key}-${Date.now()}.md`);
        await writeFile(filePath, input.plan, "utf8");
      }
      return {
        data: { plan: input.plan ?? null, isAgent: context.agent.depth > 0, filePath, mode },
        newMessages: [{ role: "user", content: EXITED_PLAN_MODE_REMINDER }],
        contextModifier: withMode(mode),
      };
    },

    mapToolResultToToolResultBlockParam(_data, toolUseId) {
      return { type: "tool_result", tool_use_id: toolUseId, content: EXITED_PLAN_MODE_RESULT };
    },
  });
}

export const EnterPlanModeTool = createEnterPlanModeTool();
export const ExitPlanModeTool = createExitPlanModeTool();
