import type { ProviderConfig } from "../../providers/create-provider.js";
import { ANTHROPIC_ALIAS_MODELS, MODEL_ALIASES, type ModelAlias } from "../../providers/model-aliases.js";
import type { Skill } from "../../skills/load-skills.js";
import { skillInstructions } from "../../tools/skill/skill-tool.js";

/**
 * What the SDK's `supportedCommands()`, `supportedModels()` and `accountInfo()` read (they come
 * with the `initialize` reply): the skills as slash commands, the models this provider runs, and
 * what armature is instead of an account.
 */

/** The skills as the SDK's SlashCommand rows: a prompt `/name args` runs one (see expandSkillCommand). */
export function skillCommands(skills: readonly Skill[]): Array<Record<string, unknown>> {
  return skills.map((s) => ({ name: s.name, description: s.description, argumentHint: "" }));
}

/**
 * A prompt that starts with `/name` naming a skill: the skill's instructions with the rest of the
 * line as its arguments, as the reference runs a skill's slash command. Anything else: undefined.
 */
export function expandSkillCommand(prompt: string, skills: readonly Skill[]): string | undefined {
  const match = /^\/([\w:.-]+)(?:\s+([\s\S]*))?$/.exec(prompt.trim());
  if (!match) return undefined;
  const skill = skills.find((s) => s.name === match[1]);
  if (!skill) return undefined;
  const args = match[2]?.trim();
  return `<command-name>/${skill.name}</command-name>\n${skillInstructions(skill, args)}${args ? `\n\nARGUMENTS: ${args}` : ""}`;
}

const FAMILY_NAMES: Readonly<Record<ModelAlias, string>> = { opus: "Opus", sonnet: "Sonnet", haiku: "Haiku" };

/**
 * The SDK's ModelInfo rows: the aliases this provider resolves (with the id each stands for),
 * then the session's own model when it is not one of them.
 */
export function supportedModels(config: ProviderConfig, aliases: Partial<Record<ModelAlias, string>>): Array<Record<string, unknown>> {
  const rows: Array<Record<string, unknown>> = [];
  for (const alias of MODEL_ALIASES) {
    const resolved = aliases[alias];
    if (resolved === undefined) continue;
    const current = config.provider === "anthropic" && resolved === ANTHROPIC_ALIAS_MODELS[alias];
    rows.push({ value: alias, resolvedModel: resolved, displayName: current ? FAMILY_NAMES[alias] : `${alias} (${resolved})`, description: `${config.provider}: ${resolved}` });
  }
  if (!rows.some((r) => r.resolvedModel === config.model)) rows.push({ value: config.model, resolvedModel: config.model, displayName: config.model, description: `${config.provider}: the session's model` });
  return rows;
}

/**
 * The SDK's AccountInfo: armature has no account or login; it calls the provider's API with a
 * key. `apiProvider` is the reference's "firstParty" only for Anthropic's own endpoint; the
 * `armature` member says which provider, model and endpoint the session uses.
 */
export function accountInfo(config: ProviderConfig, apiKeySource: string): Record<string, unknown> {
  const firstParty = config.provider === "anthropic" && (config.baseURL === undefined || /^https:\/\/api\.anthropic\.com\/?$/.test(config.baseURL));
  return {
    apiKeySource,
    tokenSource: "none",
    ...(firstParty ? { apiProvider: "firstParty" } : {}),
    armature: { provider: config.provider, model: config.model, ...(config.baseURL !== undefined ? { baseURL: config.baseURL } : {}), account: null },
  };
}
