import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

/**
 * Everything a project directory can ship that armature reads, as data: where it lives, what it
 * can do, and how trust gates it. A cloned repository controls all of these files, so each is
 * the project's own whatever its name says (`settings.local.json` included) and may only
 * restrict until the user trusts the project. Every loader of project files takes its paths
 * from here (a test walks the source for loaders that name them elsewhere).
 */
export type ProjectInputKind = "settings" | "mcp" | "agents" | "skills" | "instructions";

export interface ProjectInput {
  /** What it is, for messages. */
  name: string;
  kind: ProjectInputKind;
  /** Relative to the project directory. */
  path: string;
  /** Read only with `--settings-from claude` (or a trusted project's `"import": ["claude"]`). */
  claude: boolean;
  /** What it can do when trusted. */
  can: string;
  /** What happens while the project is untrusted. */
  untrusted: string;
}

// The keys a settings file may not use until trusted (allow rules, hooks, env, `import`, …) are
// project-policy's WIDENING_KEYS.
const SETTINGS_UNTRUSTED = "deny and ask rules apply; every widening key (project-policy WIDENING_KEYS, import among them) is ignored";

export const PROJECT_INPUTS: readonly ProjectInput[] = [
  { name: "local settings", kind: "settings", path: join(".armature", "settings.local.json"), claude: false, can: "rules, hooks, env, working dirs, mode, MCP servers", untrusted: SETTINGS_UNTRUSTED },
  { name: "project settings", kind: "settings", path: join(".armature", "settings.json"), claude: false, can: "rules, hooks, env, working dirs, mode, MCP servers", untrusted: SETTINGS_UNTRUSTED },
  { name: "local settings (.claude)", kind: "settings", path: join(".claude", "settings.local.json"), claude: true, can: "rules, hooks, env, working dirs, mode, MCP servers", untrusted: SETTINGS_UNTRUSTED },
  { name: "project settings (.claude)", kind: "settings", path: join(".claude", "settings.json"), claude: true, can: "rules, hooks, env, working dirs, mode, MCP servers", untrusted: SETTINGS_UNTRUSTED },
  { name: "MCP servers", kind: "mcp", path: ".mcp.json", claude: false, can: "programs started on the machine, URLs connected to", untrusted: "no server starts; once trusted each still needs the user's approval (enabledMcpjsonServers)" },
  { name: "sub-agent definitions", kind: "agents", path: join(".armature", "agents"), claude: false, can: "system prompts and tool lists of sub-agents", untrusted: "not loaded" },
  { name: "sub-agent definitions (.claude)", kind: "agents", path: join(".claude", "agents"), claude: true, can: "system prompts and tool lists of sub-agents", untrusted: "not loaded" },
  { name: "skills", kind: "skills", path: join(".armature", "skills"), claude: false, can: "instructions and scripts the model is offered", untrusted: "not loaded" },
  { name: "skills (.claude)", kind: "skills", path: join(".claude", "skills"), claude: true, can: "instructions and scripts the model is offered", untrusted: "not loaded" },
  { name: "project notes", kind: "instructions", path: "AGENTS.md", claude: false, can: "text in the system prompt", untrusted: "included, labelled as project content without authority" },
  { name: "project notes", kind: "instructions", path: "CLAUDE.md", claude: false, can: "text in the system prompt", untrusted: "included, labelled as project content without authority" },
];

/** The inputs of a kind that are read at all (`.claude/` ones only with the claude option). */
export function projectInputs(kind: ProjectInputKind, claude: boolean): ProjectInput[] {
  return PROJECT_INPUTS.filter((i) => i.kind === kind && (claude || !i.claude));
}

/** Whether a project input of this kind may be loaded: settings always (they restrict), instructions always (labelled), the rest only when trusted. */
export function projectInputLoads(kind: ProjectInputKind, trusted: boolean): boolean {
  return kind === "settings" || kind === "instructions" || trusted;
}

/**
 * The folders of a kind (agents, skills) to load from a project: none while it is untrusted.
 * The gate the agent and skill loaders call.
 */
export function trustedProjectDirs(projectDir: string, kind: "agents" | "skills", options: { trusted: boolean; claude: boolean }): string[] {
  if (!projectInputLoads(kind, options.trusted)) return [];
  // A folder that links out of the project (`.armature/skills -> ~/…`) is not the project's.
  return projectInputs(kind, options.claude).flatMap((i) => ("path" in projectPath(projectDir, i.path) ? [join(projectDir, i.path)] : []));
}

/** One project settings file's path, by its level and family. */
export function projectSettingsPath(projectDir: string, level: "local" | "project", claude: boolean): string {
  const input = PROJECT_INPUTS.find((i) => i.kind === "settings" && i.claude === claude && (level === "local") === i.path.endsWith("settings.local.json"));
  return join(projectDir, input!.path);
}

/** The project's MCP server file, relative to the project. */
export const PROJECT_MCP_PATH = PROJECT_INPUTS.find((i) => i.kind === "mcp")!.path;

/**
 * Where a path inside the project really is, or where it leads when a link on the way (a shipped
 * `.armature -> ~/.armature`, `AGENTS.md -> ~/.ssh/id_ed25519`, `.armature/worktrees -> ~/.vim/…`)
 * takes it out of the project's real path: such a path is not the project's, and nothing reads or
 * writes it as the project's. A path that does not exist yet is judged by its deepest existing folder.
 */
export function projectPath(projectDir: string, rel: string): { path: string } | { outside: string } {
  const root = realOrSelf(projectDir);
  const real = leadsTo(resolve(projectDir, rel), 0);
  const inside = real === root || real.startsWith(root.endsWith(sep) ? root : root + sep);
  return inside ? { path: real } : { outside: real };
}

/** The real path `path` leads to: its deepest existing part resolved, a dangling link followed by its text. */
function leadsTo(path: string, depth: number): string {
  let existing = path;
  while (!exists(existing) && dirname(existing) !== existing) existing = dirname(existing);
  const rest = relative(existing, path);
  try {
    return join(realpathSync.native(existing), rest);
  } catch {
    // A link whose target is missing (or a loop): where its text points, judged the same way.
    if (depth > 40) return path;
    try {
      const target = resolve(leadsTo(dirname(existing), depth + 1), readlinkSync(existing));
      return join(leadsTo(target, depth + 1), rest);
    } catch {
      return path;
    }
  }
}

/** Why a project path is not the project's (a sentence for a warning), or undefined when it is. */
export function outsideProjectReason(projectDir: string, rel: string): string | undefined {
  const where = projectPath(projectDir, rel);
  return "outside" in where ? `${rel} leads outside the project (to ${where.outside}), so it is not read or written as the project's` : undefined;
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function realOrSelf(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return resolve(path);
  }
}
