import { loadSkills, type Skill } from "../skills/load-skills.js";
import type { SkillToolOptions } from "../tools/skill/index.js";
import type { ExecSettings, ExecSettingsInput } from "./settings.js";

/**
 * The skills of an `exec` or `agent` run: the user's (ARMATURE_CONFIG_DIR or ~/.armature), the
 * project's once it is trusted, the `.claude/` ones with `--settings-from claude`.
 */
export function cliSkills(settings: ExecSettings, input: ExecSettingsInput): Promise<Skill[]> {
  return loadSkills({
    projectDir: input.cwd,
    projectTrusted: settings.loaded.trust.trusted,
    claude: (input.settingsFrom ?? []).includes("claude"),
    ...(input.home !== undefined ? { home: input.home } : {}),
    ...(input.userDir !== undefined ? { userDir: input.userDir } : {}),
  });
}

/** The Skill tool's options: none (no Skill tool) when no skill was found. */
export function skillToolOptions(skills: readonly Skill[]): { skills?: SkillToolOptions } {
  return skills.length > 0 ? { skills: { skills } } : {};
}
