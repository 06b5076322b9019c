// Helpers for the Bash / TaskOutput / TaskStop tests: a session with the shell tools, a recorder
// of what PostToolUse hooks receive, and a check that a process is really gone.
import { readFileSync } from "node:fs";
import { emptyHookOutcome, type HookInput, type HookRunner } from "../src/hooks/types.js";
import { createSession, type Session, type SessionOptions } from "../src/session/session.js";
import type { ToolResultBlock } from "../src/tool/types.js";
import { createBashTool } from "../src/tools/bash/bash-tool.js";
import type { BashToolOptions } from "../src/tools/bash/execute.js";
import { createTaskOutputTool } from "../src/tools/task-output/task-output-tool.js";
import { createTaskStopTool } from "../src/tools/task-stop/task-stop-tool.js";
import { builtinTools } from "../src/tools/index.js";
import { toolUse } from "./helpers.js";

/** Records the tool_response every PostToolUse hook would receive. */
export class ResponseRecorder implements HookRunner {
  readonly responses: Array<{ tool: string; input: unknown; response: unknown }> = [];
  has(event: string): boolean {
    return event === "PostToolUse";
  }
  async run(_event: string, input: HookInput) {
    this.responses.push({ tool: input.tool_name ?? "", input: input.tool_input, response: input.tool_response });
    return emptyHookOutcome();
  }
  last<T>(): T {
    return this.responses.at(-1)!.response as T;
  }
}

export function shellSession(cwd: string, options: { bash?: BashToolOptions; session?: Partial<SessionOptions> } = {}): Session {
  return createSession({
    cwd,
    tools: [createBashTool({ killGraceMs: 300, ...options.bash }), createTaskOutputTool(), createTaskStopTool()],
    permissionMode: "bypassPermissions",
    // These tests are about execution: what the safety checks still ask about (an unparsable
    // command, a write into .git/) is approved here; the permission tests cover the asking.
    canUseTool: async () => ({ behavior: "allow" }),
    // The process tests look at pids from inside the command, which a sandbox's PID namespace
    // renumbers: they run outside it unless a test asks for it (the sandbox tests do).
    sandbox: false,
    ...options.session,
  });
}

export async function run(session: Session, name: string, input: Record<string, unknown>): Promise<ToolResultBlock> {
  const [result] = await session.runTurn([toolUse(name, input)]);
  return result!;
}

/**
 * One Bash call through a fresh session with every built-in tool and these rules, in default
 * mode and without the sandbox (what the analysis alone decides): the result the model gets.
 * For the effect tests of attacks the permission engine must stop.
 */
export async function bashUnderRules(cwd: string, rules: { allow?: string[]; deny?: string[] }, command: string): Promise<ToolResultBlock> {
  const session = createSession({ cwd, tools: builtinTools(), sandbox: false, ...rules });
  try {
    return await run(session, "Bash", { command });
  } finally {
    await session.close();
  }
}

export function textOf(block: ToolResultBlock): string {
  if (typeof block.content === "string") return block.content;
  return block.content
    .filter((b) => b.type === "text")
    .map((b) => (b as { text: string }).text)
    .join("\n");
}

/** Alive and not a zombie (an unreaped zombie holds no resources and runs no code). */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

export function pidsIn(file: string): number[] {
  return readFileSync(file, "utf8")
    .split(/\s+/)
    .filter(Boolean)
    .map(Number);
}

/** Polls until `check` is true (or gives up after `ms`); for effects that land just after a call returns. */
export async function eventually(check: () => boolean, ms = 5_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return check();
}
