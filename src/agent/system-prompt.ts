import { engineCommand } from "../sandbox/engine-process.js";
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";

export interface SystemPromptOptions {
  cwd: string;
  /** Names of the tools the model has. */
  toolNames: readonly string[];
  date?: Date;
  platform?: string;
  /** Characters of AGENTS.md / CLAUDE.md kept (default 20,000). */
  maxProjectNotesChars?: number;
}

const PREAMBLE = `You are a coding agent working in the user's project through the tools below. Do what the user asks, using the tools to inspect and change files and to run commands; then answer briefly with what you did or found.`;

const TOOL_GUIDE = `# Using the tools
- Prefer the dedicated file and search tools (Read, Grep, Glob, Edit, Write) over shell commands when one fits; use Bash for builds, tests, git and other programs.
- Read a file before you edit it. Edit needs an old_string that occurs exactly once (or replace_all).
- Independent calls can go in one reply: they run in parallel. Calls that depend on each other go in order.
- Calls run behind the user's permission settings: a denied call means it was not allowed. Adjust your approach; do not retry it unchanged.
- A result marked as an error says what went wrong and what to do next. Hook output is feedback from the user's configuration.`;

/**
 * A short system prompt: what the agent is, how to use the tools, the environment (cwd,
 * platform, date, git branch and a status summary), and the project's AGENTS.md or CLAUDE.md.
 */
export async function buildSystemPrompt(options: SystemPromptOptions): Promise<string> {
  const [git, notes] = await Promise.all([gitSummary(options.cwd), projectNotes(options.cwd, options.maxProjectNotesChars ?? 20_000)]);
  const date = (options.date ?? new Date()).toISOString().slice(0, 10);
  const env = [
    "# Environment",
    `- Working directory: ${options.cwd}`,
    `- Platform: ${options.platform ?? process.platform}`,
    `- Date: ${date}`,
    ...(git ? [`- Git: ${git}`] : ["- Git: not a repository"]),
    `- Tools: ${options.toolNames.join(", ") || "none"}`,
  ].join("\n");
  const parts = [PREAMBLE, TOOL_GUIDE, env];
  if (notes) parts.push(`# Project notes (${notes.file})\n${notes.text}`);
  return parts.join("\n\n");
}

/** armature's own git, before any approval: hardened (no hooks, fsmonitor, lazy fetch) and read-only where the sandbox runs. */
function run(program: string, args: string[], cwd: string): Promise<string | undefined> {
  const cmd = engineCommand(program, args, { cwd });
  if (!cmd) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    execFile(cmd.file, cmd.args, { cwd, env: cmd.env, timeout: 2000, maxBuffer: 1 << 20 }, (err, stdout) => resolve(err ? undefined : stdout));
  });
}

async function gitSummary(cwd: string): Promise<string | undefined> {
  const [branch, status] = await Promise.all([
    run("git", ["rev-parse", "--abbrev-ref", "HEAD"], cwd),
    run("git", ["status", "--porcelain"], cwd),
  ]);
  if (branch === undefined) return undefined;
  const lines = (status ?? "").split("\n").filter((l) => l !== "");
  const changed = lines.filter((l) => !l.startsWith("??")).length;
  const untracked = lines.length - changed;
  const state = lines.length === 0 ? "clean" : `${changed} changed, ${untracked} untracked file${untracked === 1 ? "" : "s"}`;
  return `branch ${branch.trim()}, ${state}`;
}

async function projectNotes(cwd: string, max: number): Promise<{ file: string; text: string } | undefined> {
  for (const file of ["AGENTS.md", "CLAUDE.md"]) {
    const text = await readFile(join(cwd, file), "utf8").catch(() => undefined);
    if (text === undefined || text.trim() === "") continue;
    return { file, text: text.length > max ? `${text.slice(0, max)}\n[… truncated at ${max} characters]` : text.trim() };
  }
  return undefined;
}
