import { z } from "zod";
import { buildTool } from "../../tool/build-tool.js";
import { parseRule, RuleParseError } from "../../permissions/rule.js";
import type { PermissionRule, SkillGrant, Tool, ToolResult, ToolUseContext } from "../../tool/types.js";
import type { Skill } from "../../skills/load-skills.js";

export const SKILL_TOOL_NAME = "Skill";

export const SKILL_DESCRIPTION = [
  "Loads one of the skills named in the system prompt: a folder of instructions (and perhaps scripts or templates) for a kind of task.",
  "",
  "- Call it when a listed skill fits the task, or when the user types /<skill-name>; pass the name as skill, with or without the slash.",
  "- args is handed to the skill as its arguments (where its instructions say $ARGUMENTS).",
  "- The instructions arrive right after the result, with the skill's folder: follow them. Calling the same skill again loads only the new arguments' version.",
  "- Only listed names work.",
].join("\n");

export const skillInputSchema = z.object({
  skill: z.string().describe('Which skill to load, by its listed name ("pdf-forms" or "/pdf-forms")'),
  args: z.string().optional().describe("Arguments for the skill, as one string"),
});

export type SkillInput = z.infer<typeof skillInputSchema>;

export interface SkillToolData {
  success: true;
  commandName: string;
}

export interface SkillToolOptions {
  /** The skills this session offers (`loadSkills`), or a function that finds them once. */
  skills: readonly Skill[] | (() => Promise<readonly Skill[]>);
}

const INVOKED_KEY = "armature.skills.invoked";

/** Names of the skills already loaded in this agent's conversation. */
function invoked(context: ToolUseContext): Set<string> {
  const key = `${INVOKED_KEY}:${context.agent.agentId ?? "main"}`;
  let set = context.extensions.get(key) as Set<string> | undefined;
  if (!set) {
    set = new Set();
    context.extensions.set(key, set);
  }
  return set;
}

function skillName(input: string): string {
  return input.trim().replace(/^\//, "");
}

/** The text block that follows the result (the reference's shape). Pure. */
export function skillInstructions(skill: Skill, args: string | undefined): string {
  return `Base directory for this skill: ${skill.baseDir}\n\n${skill.body.trimStart().replaceAll("$ARGUMENTS", args ?? "")}`;
}

export function reinvocationNote(name: string): string {
  return `(Re-invocation of /${name} — the skill instructions were previously loaded; the arguments or dynamic output below are new.)\n`;
}

/** A skill's `allowed-tools` as allow rules; an entry that does not parse is left out (it covers nothing). */
export function skillGrant(skill: Skill): SkillGrant {
  const rules: PermissionRule[] = [];
  for (const raw of skill.allowedTools) {
    try {
      rules.push(parseRule(raw, "allow", `skill ${skill.name} allowed-tools`));
    } catch (err) {
      if (!(err instanceof RuleParseError)) throw err;
    }
  }
  return { name: skill.name, rules };
}

export function createSkillTool(options: SkillToolOptions): Tool<typeof skillInputSchema, SkillToolData> {
  let cached: Promise<readonly Skill[]> | undefined;
  const skills = (): Promise<readonly Skill[]> => (cached ??= typeof options.skills === "function" ? options.skills() : Promise.resolve(options.skills));
  const find = async (name: string): Promise<Skill | undefined> => (await skills()).find((s) => s.name === skillName(name));

  return buildTool({
    name: SKILL_TOOL_NAME,
    searchHint: "skill instructions slash command",
    description: SKILL_DESCRIPTION,
    inputSchema: skillInputSchema,
    // It reads instructions the session already offers; it changes nothing.
    isReadOnly: () => true,
    isConcurrencySafe: () => false,
    checkPermissions: () => ({ behavior: "allow", reason: "Skill only loads instructions the session lists" }),

    async validateInput(input) {
      if (await find(input.skill)) return { result: true };
      return { result: false, message: `Unknown skill: ${skillName(input.skill)}`, errorCode: "unknown-skill" };
    },

    async call(input, context) {
      const skill = (await find(input.skill))!;
      const seen = invoked(context);
      const again = seen.has(skill.name);
      seen.add(skill.name);
      const blocks = [...(again ? [{ type: "text" as const, text: reinvocationNote(skill.name) }] : []), { type: "text" as const, text: skillInstructions(skill, input.args) }];
      const result: ToolResult<SkillToolData> = { data: { success: true, commandName: skill.name }, newMessages: [{ role: "user", content: blocks }] };
      // allowed-tools are pre-approved until the agent's turn ends (runAgent clears the grant).
      if (skill.allowedTools.length > 0) {
        const grant = skillGrant(skill);
        result.contextModifier = (ctx) => {
          // A second skill in the same turn adds its list to the first one's.
          const before = ctx.permissionContext.skill;
          const merged = before && before.name !== grant.name ? { name: `${before.name}, ${grant.name}`, rules: [...before.rules, ...grant.rules] } : grant;
          return { ...ctx, permissionContext: { ...ctx.permissionContext, skill: merged } };
        };
      }
      return result;
    },

    mapToolResultToToolResultBlockParam(data, toolUseId) {
      return { type: "tool_result", tool_use_id: toolUseId, content: `Launching skill: ${data.commandName}` };
    },
  });
}
