import { readdir, readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fieldList, fieldText, parseFrontMatter } from "../fs/front-matter.js";
import { trustedProjectDirs } from "../settings/project-inputs.js";

/** One skill: a folder holding SKILL.md (the Agent Skills format). */
export interface Skill {
  name: string;
  description: string;
  /** `allowed-tools` from the front matter, as listed. */
  allowedTools: string[];
  /** The instructions: SKILL.md without its front matter. */
  body: string;
  /** The skill's folder (the model is told it, for files the instructions name). */
  baseDir: string;
  source: "user" | "project" | "claude-user" | "claude-project";
}

export interface SkillSources {
  /** The project folder. */
  projectDir: string;
  /**
   * Whether the project is trusted (`projectTrustStatus(dir).trusted`). A project's skills are
   * instructions the model follows: an untrusted checkout must not inject them.
   */
  projectTrusted: boolean;
  /** `--settings-from claude`: also `.claude/skills/` (the user's, and the project's when trusted). */
  claude?: boolean;
  /** Home directory (default: the user's). */
  home?: string;
  /** armature's user folder (default: env ARMATURE_CONFIG_DIR, else ~/.armature). */
  userDir?: string;
}

/**
 * SKILL.md read: its front matter's fields (YAML, see parseFrontMatter: text values, lists as
 * lists) and the instructions after it. Undefined without front matter; a front matter that is
 * not YAML throws FrontMatterError.
 */
export async function parseSkillFile(text: string): Promise<{ fields: Record<string, string | string[]>; body: string } | undefined> {
  const parsed = await parseFrontMatter(text);
  if (!parsed) return undefined;
  const fields: Record<string, string | string[]> = {};
  for (const [key, value] of Object.entries(parsed.fields)) {
    const v = fieldList(value) ?? fieldText(value);
    if (v !== undefined) fields[key] = v;
  }
  return { fields, body: parsed.body };
}

/** `allowed-tools`: a list, or one string split at commas and spaces outside parentheses (`Bash(git status *), Read`). Pure. */
export function toolList(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  if (Array.isArray(value)) return value;
  const out: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of value) {
    if (ch === "(") depth++;
    else if (ch === ")") depth = Math.max(0, depth - 1);
    if (depth === 0 && (ch === "," || /\s/.test(ch))) {
      if (current !== "") out.push(current);
      current = "";
    } else current += ch;
  }
  if (current !== "") out.push(current);
  return out;
}

/** The skills in one `skills/` folder; a folder without a readable SKILL.md with a YAML front matter is skipped. */
async function skillsIn(root: string, source: Skill["source"]): Promise<Skill[]> {
  const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
  const out: Skill[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (!entry.isDirectory()) continue;
    const baseDir = join(root, entry.name);
    const text = await readFile(join(baseDir, "SKILL.md"), "utf8").catch(() => undefined);
    const parsed = text === undefined ? undefined : await parseSkillFile(text).catch(() => undefined);
    if (!parsed) continue;
    const name = typeof parsed.fields.name === "string" && parsed.fields.name !== "" ? parsed.fields.name : entry.name;
    const description = typeof parsed.fields.description === "string" ? parsed.fields.description : "";
    out.push({ name, description, allowedTools: toolList(parsed.fields["allowed-tools"]), body: parsed.body, baseDir, source });
  }
  return out;
}

/**
 * Every skill the session may use, the project's first (as the reference lists them): the
 * project's `.armature/skills/` only when the project is trusted, `.claude/skills/` only with
 * `claude`, then the user's. A name seen earlier wins.
 */
export async function loadSkills(sources: SkillSources): Promise<Skill[]> {
  const home = sources.home ?? homedir();
  const userDir = sources.userDir ?? process.env.ARMATURE_CONFIG_DIR ?? join(home, ".armature");
  // The trust gate: no project folder at all while the project is untrusted.
  const projectRoots = trustedProjectDirs(sources.projectDir, "skills", { trusted: sources.projectTrusted, claude: sources.claude === true });
  const roots: Array<[string, Skill["source"]]> = projectRoots.map((dir) => [dir, basename(dirname(dir)) === ".claude" ? "claude-project" : "project"]);
  roots.push([join(userDir, "skills"), "user"]);
  if (sources.claude) roots.push([join(home, ".claude", "skills"), "claude-user"]);
  const seen = new Set<string>();
  const skills: Skill[] = [];
  for (const [root, source] of roots) {
    for (const skill of await skillsIn(root, source)) {
      if (seen.has(skill.name)) continue;
      seen.add(skill.name);
      skills.push(skill);
    }
  }
  return skills;
}

/** The system-prompt listing: names and descriptions only, the instructions load on use. */
export function skillListing(skills: readonly Skill[]): string {
  if (skills.length === 0) return "";
  return ["The following skills are available for use with the Skill tool:", "", ...skills.map((s) => `- ${s.name}: ${s.description}`)].join("\n");
}
