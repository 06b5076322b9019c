import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fieldList, fieldText, parseFrontMatter } from "../../fs/front-matter.js";

/** A kind of sub-agent: what it is for, which tools it gets, its model and its system prompt. */
export interface AgentDefinition {
  name: string;
  description: string;
  /** Tool names it may use; undefined: every tool of the parent (but those no sub-agent gets). */
  tools?: string[];
  /** A model alias or id; undefined: the parent's model. */
  model?: string;
  /** Only reading: it runs in plan mode, so nothing it calls can change anything. */
  readOnly: boolean;
  systemPrompt: string;
  /** Where it was defined (`built-in` or a file). */
  source: string;
}

const GENERAL_PURPOSE_PROMPT = [
  "You are a sub-agent: another agent gave you a task and waits for your report.",
  "Use the tools to do the task completely, then reply with a concise report of what you did and found:",
  "the facts the other agent needs (file paths, line numbers, commands and their results), not a narrative.",
  "Your final message is the whole report; the other agent sees nothing else of your work.",
].join("\n");

const EXPLORE_PROMPT = [
  "You are a read-only search sub-agent: another agent needs facts about this codebase and waits for your report.",
  "You cannot change anything: every call that would write, edit or run a changing command is refused.",
  "Search broadly first (Glob for names, Grep for contents), then read the relevant parts.",
  "Report concisely: the answer, with file paths and line numbers as evidence, and what you did not find.",
].join("\n");

export const BUILTIN_AGENTS: readonly AgentDefinition[] = [
  {
    name: "general-purpose",
    description: "General agent for multi-step tasks: research, code search and changes. Has every tool.",
    readOnly: false,
    systemPrompt: GENERAL_PURPOSE_PROMPT,
    source: "built-in",
  },
  {
    name: "Explore",
    description: "Fast read-only agent for exploring a codebase: finding files, searching code, answering questions about it.",
    tools: ["Read", "Glob", "Grep", "Bash", "WebFetch", "WebSearch", "ToolSearch", "Skill"],
    readOnly: true,
    systemPrompt: EXPLORE_PROMPT,
    source: "built-in",
  },
];

export interface LoadedAgents {
  agents: AgentDefinition[];
  /** Files that could not be used, each with the reason. */
  errors: string[];
}

/**
 * Agent definitions from Markdown files (`.armature/agents/*.md`, `.claude/agents/*.md`): a
 * front matter with `name`, `description`, optional `tools` (comma list or YAML list) and
 * `model`, then the system prompt — the reference agent's format. Later directories win.
 */
export async function loadAgentDefinitions(dirs: readonly string[]): Promise<LoadedAgents> {
  const byName = new Map<string, AgentDefinition>();
  const errors: string[] = [];
  for (const dir of dirs) {
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names.filter((n) => n.endsWith(".md")).sort()) {
      const file = join(dir, name);
      try {
        const def = await parseAgentFile(await readFile(file, "utf8"), file);
        byName.set(def.name, def);
      } catch (err) {
        errors.push(`${file}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }
  return { agents: [...byName.values()], errors };
}

/** One agent file: a YAML front matter between `---` lines, then the prompt. */
export async function parseAgentFile(text: string, source: string): Promise<AgentDefinition> {
  const parsed = await parseFrontMatter(text);
  if (!parsed) throw new Error("no front matter: start the file with a --- block holding name and description");
  const fields = new Map<string, string | string[]>();
  for (const [key, value] of Object.entries(parsed.fields)) {
    const v = fieldList(value) ?? fieldText(value);
    if (v !== undefined) fields.set(key, v);
  }
  const name = scalar(fields, "name");
  const description = scalar(fields, "description");
  if (!name) throw new Error("the front matter has no name");
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(name)) throw new Error(`name "${name}" must be letters, digits, '-', '_' or '.' (at most 64)`);
  if (!description) throw new Error("the front matter has no description");
  const tools = fields.get("tools");
  const list = tools === undefined ? undefined : (Array.isArray(tools) ? tools : tools.split(",")).map((t) => t.trim()).filter((t) => t !== "");
  const model = scalar(fields, "model");
  const def: AgentDefinition = {
    name,
    description,
    readOnly: false,
    systemPrompt: parsed.body.trim(),
    source,
  };
  if (list !== undefined && !(list.length === 1 && list[0] === "*")) def.tools = list;
  if (model && model !== "inherit") def.model = model;
  return def;
}

function scalar(fields: Map<string, string | string[]>, key: string): string | undefined {
  const v = fields.get(key);
  return typeof v === "string" && v.trim() !== "" ? v.trim() : undefined;
}
