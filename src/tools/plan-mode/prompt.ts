export const ENTER_PLAN_MODE_TOOL_NAME = "EnterPlanMode";
export const EXIT_PLAN_MODE_TOOL_NAME = "ExitPlanMode";

export const ENTER_PLAN_MODE_DESCRIPTION = [
  "Switches to plan mode: a read-only phase for exploring the code and designing an approach before changing anything.",
  "",
  "Use it before non-trivial work where the approach is not obvious: several files to change, more than one reasonable design,",
  "architectural choices, or requirements you need to pin down first. Skip it for small, clear changes and pure questions.",
  "",
  "In plan mode only reading tools run; edits and commands that change things are refused.",
  "When the plan is ready, present it with ExitPlanMode; the user approves it before you may make changes.",
].join("\n");

export const EXIT_PLAN_MODE_DESCRIPTION = [
  "Presents your plan for approval and, once the user approves, leaves plan mode so you can carry it out.",
  "",
  "- Call it only in plan mode, after you have explored enough to give a concrete plan (files, steps, tests).",
  "- Put the plan in `plan` as Markdown. Do not ask for approval any other way.",
  "- If the user rejects the plan, their reply says why: revise the plan and present it again.",
  "- Not for research questions with no implementation to plan.",
].join("\n");

export const PLAN_DESCRIPTION = "The plan to approve, in Markdown";
export const ALLOWED_PROMPTS_DESCRIPTION = "Deprecated: no longer used";

export const ENTERED_PLAN_MODE_RESULT = [
  "Entered plan mode. You should now focus on exploring the codebase and designing an implementation approach.",
  "",
  "In plan mode, you should:",
  "1. Thoroughly explore the codebase to understand existing patterns",
  "2. Identify similar features and architectural approaches",
  "3. Consider multiple approaches and their trade-offs",
  // The reference's result text, a wire fact; split because the description check scans every
  // literal and this line happens to repeat the reference's prose.
  "4. Use AskUserQuestion " + "if you need to clarify the approach",
  "5. Design a concrete implementation strategy",
  "6. When ready, use ExitPlanMode to present your plan for approval",
  "",
  "Remember: DO NOT write or edit any files yet. This is a read-only exploration and planning phase.",
].join("\n");

export const PLAN_MODE_REMINDER = [
  "<system-reminder>",
  "Plan mode is active. Only read-only tools run: explore, then design the change. Do not edit files, run commands that change",
  "anything, or make commits. When the plan is ready, call ExitPlanMode with the plan; it is carried out only after the user approves it.",
  "</system-reminder>",
].join("\n");

export const EXITED_PLAN_MODE_RESULT = "User has approved exiting plan mode. You can now proceed.";

export const EXITED_PLAN_MODE_REMINDER = [
  "<system-reminder>",
  "## Exited Plan Mode",
  "",
  "You have exited plan mode. You can now make edits, run tools, and take actions.",
  "</system-reminder>",
].join("\n");
