import { randomBytes } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { runAgent } from "../../agent/run-agent.js";
import { buildSystemPrompt } from "../../agent/system-prompt.js";
import type { Skill } from "../../skills/load-skills.js";
import { agentModelOf, createContextRunner, pipelineServicesOf, type AgentModelInfo } from "../../agent/context-runner.js";
import type { AgentResult } from "../../agent/types.js";
import { runHooks } from "../../hooks/runner.js";
import type { HookRunner } from "../../hooks/types.js";
import { hookCommonInput } from "../../pipeline/run-tool-use.js";
import type { AgentMessage } from "../../providers/model.js";
import { buildTool } from "../../tool/build-tool.js";
import { createSubagentContext } from "../../tool/context.js";
import type { Tool, ToolUseContext } from "../../tool/types.js";
import { taskRegistry, type BackgroundTask, type TaskStatus } from "../../tasks/registry.js";
import { BUILTIN_AGENTS, type AgentDefinition } from "./agent-types.js";
import { AGENT_TOOL_NAME, agentDescription, handBack, launchedText, taskNotification, worktreeNote } from "./prompt.js";
import { commitsSince, uncommittedFiles } from "../../worktrees/git.js";
import { createWorktree, removeWorktree, unlockWorktree, type Worktree } from "../../worktrees/worktree.js";


export interface AgentToolOptions {
  /** The model sub-agents use; default: the one the running agent loop uses. */
  runtime?: AgentModelInfo;
  /** Model aliases the model may ask for (`sonnet`, `haiku`, …) → model ids; an unknown alias keeps the parent's model. */
  models?: Readonly<Record<string, string>>;
  /** User-defined agent types (see `loadAgentDefinitions`), besides general-purpose and Explore. */
  agents?: readonly AgentDefinition[];
  /** Sub-agents may start sub-agents down to this depth (default 3). */
  maxDepth?: number;
  /** Model requests one sub-agent may make (default 100). */
  maxTurns?: number;
  /** Hooks for SubagentStart and SubagentStop (the session's tool hooks apply to the sub-agent's calls anyway). */
  hooks?: HookRunner;
  /** The session's skills, listed in a sub-agent's system prompt when it has the Skill tool. */
  skills?: readonly Skill[];
}

export const agentInputSchema = z.object({
  description: z.string().describe("What the sub-agent will do, in three to five words"),
  prompt: z.string().describe("The task for the sub-agent, with everything it needs to know"),
  subagent_type: z.string().optional().describe("The type of sub-agent to use (default general-purpose)"),
  model: z.enum(["sonnet", "opus", "haiku", "fable"]).optional().describe("A model for this sub-agent; default: the same as yours"),
  effort: z.enum(["low", "medium", "high", "xhigh", "max"]).optional().describe("How much the sub-agent's model should reason (where its provider supports it)"),
  run_in_background: z.boolean().optional().describe("Return at once and be notified when the report is ready"),
  isolation: z.enum(["worktree", "remote"]).optional().describe('"worktree": the sub-agent works in a git worktree of its own'),
});

export type AgentInput = z.infer<typeof agentInputSchema>;

export interface AgentToolData {
  status: "completed" | "async_launched" | "error";
  agentId: string;
  agentType: string;
  description: string;
  prompt: string;
  /** The report (foreground), or the launch note (background). */
  content: string;
  toolsUsed: string[];
  totalTokens: number;
  totalToolUseCount: number;
  totalDurationMs: number;
  outputFile: string;
  resolvedModel: string;
  /** isolation "worktree": where the sub-agent worked, and whether it left changes there. */
  worktree?: { path: string; branch: string; changed: boolean };
}

/** Tools no sub-agent gets: they need the user, who talks to the main agent only. */
const MAIN_AGENT_ONLY = new Set(["AskUserQuestion", "EnterPlanMode", "ExitPlanMode"]);

export function createAgentTool(options: AgentToolOptions = {}): Tool<typeof agentInputSchema, AgentToolData> {
  const maxDepth = options.maxDepth ?? 3;
  const agents = new Map<string, AgentDefinition>([...BUILTIN_AGENTS, ...(options.agents ?? [])].map((a) => [a.name, a]));
  const typeOf = (input: AgentInput): AgentDefinition | undefined => agents.get(input.subagent_type ?? "general-purpose");

  return buildTool({
    name: AGENT_TOOL_NAME,
    aliases: ["Task"],
    searchHint: "delegate a task to a sub-agent subagent explore research",
    inputSchema: agentInputSchema,
    description: agentDescription([...agents.values()]),
    maxResultSizeChars: 100_000,
    // A read-only type runs in plan mode: nothing it calls can change anything.
    isReadOnly: (input) => typeOf(input)?.readOnly === true,
    isConcurrencySafe: (input) => typeOf(input)?.readOnly === true,
    // Starting it changes nothing by itself; each of the sub-agent's calls is checked on its own.
    checkPermissions: () => ({ behavior: "allow", reason: "The sub-agent's own calls are each checked" }),
    validateInput(input, context) {
      if (!typeOf(input)) {
        return { result: false, message: `Agent type '${input.subagent_type}' not found. Available agents: ${[...agents.keys()].sort().join(", ")}`, errorCode: "unknown_agent_type" };
      }
      if (context.agent.depth + 1 > maxDepth) {
        return { result: false, message: `Sub-agents may nest ${maxDepth} deep and this one is at depth ${context.agent.depth}: do the task yourself.`, errorCode: "too_deep" };
      }
      if (input.isolation === "remote") {
        return { result: false, message: 'isolation "remote" is not available: armature runs sub-agents on this machine. Use isolation "worktree" for a separate checkout, or leave isolation out.', errorCode: "no_remote" };
      }
      if (!pipelineServicesOf(context)) return { result: false, message: "The Agent tool runs only inside a session (createSession).", errorCode: "no_session" };
      if (!(options.runtime ?? agentModelOf(context))) {
        return { result: false, message: "No model is configured for sub-agents: the Agent tool works inside an agent loop (runAgent) or with a runtime option.", errorCode: "no_model" };
      }
      return { result: true };
    },

    async call(input, context, onProgress) {
      const def = typeOf(input)!;
      const runtime = (options.runtime ?? agentModelOf(context))!;
      const model = resolveModel(input.model ?? def.model, runtime.model, options.models);
      const agentId = `a${randomBytes(8).toString("hex")}`;
      // isolation "worktree": the child's project (the folder its tools may change) is a new worktree.
      const tree = input.isolation === "worktree" ? await createWorktree(context.workspace.cwd, `agent-${agentId}`, `armature sub-agent ${agentId}`) : undefined;
      const child = createSubagentContext(context, {
        agentId,
        ...(tree ? { projectDir: tree.path } : {}),
        tools: toolsFor(def, context, maxDepth),
        model,
        ...(def.readOnly ? { permissionMode: "plan" as const } : {}),
        // A background agent outlives the turn that started it: the session's close ends it.
        ...(input.run_in_background ? { parentController: sessionLifetime(context) } : {}),
      });
      const transcriptDir = join(context.session.dir, "agents");
      await mkdir(transcriptDir, { recursive: true });
      const outputFile = join(transcriptDir, `${agentId}.jsonl`);
      const run = async (): Promise<ChildOutcome> => {
        try {
          const outcome = await runChild({ def, input, child, runtime, model, outputFile, hooks: options.hooks, skills: options.skills, maxTurns: options.maxTurns ?? 100, onEvent: (data) => onProgress({ toolUseId: "", data }) });
          return tree ? { ...outcome, worktree: await settleWorktree(tree) } : outcome;
        } catch (err) {
          if (tree) await settleWorktree(tree).catch(() => undefined);
          throw err;
        }
      };

      const base = { agentId, agentType: def.name, description: input.description, prompt: input.prompt, outputFile, resolvedModel: model };
      if (!input.run_in_background) {
        const { isError, ...done } = await run();
        const data: AgentToolData = { ...base, ...done, status: isError ? "error" : "completed" };
        return { data };
      }
      startInBackground(context, child, run, base);
      const data: AgentToolData = { ...base, status: "async_launched", content: launchedText(agentId, outputFile), toolsUsed: [], totalTokens: 0, totalToolUseCount: 0, totalDurationMs: 0 };
      return { data };
    },

    mapToolResultToToolResultBlockParam(data, toolUseId) {
      if (data.status === "async_launched") return { type: "tool_result", tool_use_id: toolUseId, content: data.content };
      const frame = handBack({ text: data.content, toolsUsed: data.toolsUsed, agentId: data.agentId, tokens: data.totalTokens, toolUses: data.totalToolUseCount, durationMs: data.totalDurationMs });
      const text = data.worktree ? `${frame}\n${worktreeNote(data.worktree, data.worktree.changed)}` : frame;
      return { type: "tool_result", tool_use_id: toolUseId, content: [{ type: "text", text }], ...(data.status === "error" ? { is_error: true } : {}) };
    },
  });
}

/** A controller that lives as long as the session: aborted by its close. */
function sessionLifetime(context: ToolUseContext): AbortController {
  const controller = new AbortController();
  context.session.cleanups.add(() => controller.abort(new Error("session closed")));
  return controller;
}

function resolveModel(asked: string | undefined, parent: string, models: Readonly<Record<string, string>> | undefined): string {
  if (asked === undefined) return parent;
  return models?.[asked] ?? (["sonnet", "opus", "haiku", "fable"].includes(asked) ? parent : asked);
}

/** The parent's pool narrowed to the type's tools; no Agent at the depth limit; no user-facing tools. */
function toolsFor(def: AgentDefinition, context: ToolUseContext, maxDepth: number): Tool[] {
  const allowed = def.tools ? new Set(def.tools) : undefined;
  return context.options.tools.filter((t) => {
    if (MAIN_AGENT_ONLY.has(t.name)) return false;
    if (t.name === AGENT_TOOL_NAME && context.agent.depth + 2 > maxDepth) return false;
    return allowed === undefined || allowed.has(t.name) || t.aliases.some((a) => allowed.has(a));
  });
}

/** After an isolated sub-agent: an unchanged worktree is removed, one with work stays (unlocked) for the parent. */
async function settleWorktree(tree: Worktree): Promise<{ path: string; branch: string; changed: boolean }> {
  const changed = (await uncommittedFiles(tree.path)) > 0 || (await commitsSince(tree.path, tree.base)) > 0;
  if (changed) await unlockWorktree(tree);
  else await removeWorktree(tree);
  return { path: tree.path, branch: tree.branch, changed };
}

interface ChildOutcome {
  worktree?: { path: string; branch: string; changed: boolean };
  content: string;
  toolsUsed: string[];
  totalTokens: number;
  totalToolUseCount: number;
  totalDurationMs: number;
  isError: boolean;
}

async function runChild(args: {
  def: AgentDefinition;
  input: AgentInput;
  child: ToolUseContext;
  runtime: AgentModelInfo;
  model: string;
  outputFile: string;
  hooks: HookRunner | undefined;
  skills: readonly Skill[] | undefined;
  maxTurns: number;
  onEvent: (data: unknown) => void;
}): Promise<ChildOutcome> {
  const { def, input, child, runtime, hooks } = args;
  const started = performance.now();
  const runner = createContextRunner(child, pipelineServicesOf(child)!);
  const common = { ...hookCommonInput(child), agent_id: child.agent.agentId!, agent_type: def.name };
  const start = await runHooks(hooks, "SubagentStart", { ...common }, child.abortController.signal);
  const env = await buildSystemPrompt({ cwd: child.workspace.cwd, toolNames: runner.context.options.tools.map((t) => t.name), ...(args.skills ? { skills: args.skills } : {}) });
  const system = `${env}\n\n# Your role: ${def.name} sub-agent\n${def.systemPrompt}`;
  const prompt = start.additionalContext.length > 0 ? `${input.prompt}\n\n${start.additionalContext.join("\n")}` : input.prompt;

  let messages: AgentMessage[] | undefined;
  let result: AgentResult | undefined;
  let stopHookActive = false;
  for (let attempt = 0; attempt < 3; attempt++) {
    const generator = runAgent({
      session: runner,
      provider: runtime.provider,
      model: args.model,
      ...(messages ? { messages } : { prompt }),
      system,
      maxTurns: args.maxTurns,
      ...(runtime.maxTokens !== undefined ? { maxTokens: runtime.maxTokens } : {}),
      ...(input.effort !== undefined ? { effort: input.effort } : {}),
      signal: child.abortController.signal,
      transcriptPath: args.outputFile,
      sessionStart: "none",
      sessionEnd: false,
    });
    for (;;) {
      const next = await generator.next();
      if (next.done) {
        result = next.value;
        break;
      }
      // The parent's host sees the sub-agent's work (its replies carry their usage, for the parent's totals).
      const kind = next.value.type;
      if (kind === "tool_progress" || kind === "tool_result" || kind === "assistant_message") args.onEvent({ agentId: child.agent.agentId, model: args.model, event: next.value });
    }
    // SubagentStop: a hook that blocks (exit 2) sends the sub-agent back to work with its reason.
    const stop = await runHooks(hooks, "SubagentStop", { ...common, stop_hook_active: stopHookActive, agent_transcript_path: args.outputFile, last_assistant_message: result.text }, child.abortController.signal);
    if (stop.blockReason === undefined || result.is_error) break;
    stopHookActive = true;
    messages = [...result.messages, { role: "user", content: `SubagentStop hook feedback:\n${stop.blockReason}` }];
  }
  const used: string[] = [];
  let toolUses = 0;
  for (const m of result!.messages) {
    if (m.role !== "assistant") continue;
    for (const b of m.content) {
      if (b.type !== "tool_use") continue;
      toolUses++;
      if (!used.includes(b.name)) used.push(b.name);
    }
  }
  const usage = result!.usage;
  return {
    content: result!.is_error && result!.text === "" ? `The sub-agent stopped with an error: ${result!.error ?? result!.terminal_reason}` : result!.text,
    toolsUsed: used,
    totalTokens: usage.input_tokens + usage.output_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens,
    totalToolUseCount: toolUses,
    totalDurationMs: Math.round(performance.now() - started),
    isError: result!.is_error,
  };
}

/** A background agent is a task: TaskStop stops it, its report arrives as a notification. */
function startInBackground(
  context: ToolUseContext,
  child: ToolUseContext,
  run: () => Promise<ChildOutcome>,
  info: { agentId: string; description: string; outputFile: string },
): void {
  let resolveDone!: () => void;
  const done = new Promise<void>((resolve) => (resolveDone = resolve));
  const task: BackgroundTask = {
    id: info.agentId,
    type: "local_agent",
    description: info.description,
    outputPath: info.outputFile,
    startedAt: Date.now(),
    status: "running",
    readOffset: 0,
    endReported: false,
    done,
    ...(context.agent.agentId !== undefined ? { ownerAgentId: context.agent.agentId } : {}),
    async stop() {
      child.abortController.abort(new Error("stopped with TaskStop"));
      await done;
    },
  };
  taskRegistry(context).add(task);
  void run()
    .then((outcome) => {
      const status: TaskStatus = child.abortController.signal.aborted ? "killed" : outcome.isError ? "failed" : "completed";
      task.status = status;
      task.notification = taskNotification({
        agentId: info.agentId,
        outputFile: info.outputFile,
        status,
        description: info.description,
        result: outcome.worktree ? `${outcome.content}\n${worktreeNote(outcome.worktree, outcome.worktree.changed)}` : outcome.content,
        tokens: outcome.totalTokens,
        toolUses: outcome.totalToolUseCount,
        durationMs: outcome.totalDurationMs,
      });
    })
    .catch((err: unknown) => {
      task.status = "failed";
      task.endNote = err instanceof Error ? err.message : String(err);
    })
    .finally(() => {
      task.endedAt = Date.now();
      resolveDone();
    });
}

export const AgentTool = createAgentTool();
