import { rm } from "node:fs/promises";
import { TurnBudget } from "../budget/turn-budget.js";
import { runHooks } from "../hooks/runner.js";
import type { HookRunner } from "../hooks/types.js";
import { resolveMaxConcurrency } from "../orchestration/concurrency.js";
import { runTools } from "../orchestration/run-tools.js";
import { StreamingToolExecutor } from "../orchestration/streaming-executor.js";
import { parseRuleLists } from "../permissions/rule.js";
import { createPermissionEngine, type AutoClassifier } from "../permissions/engine.js";
import type { Approver, PermissionResolver } from "../permissions/types.js";
import { prepareTurn } from "../pipeline/prepare.js";
import { defaultPipelineServices, hookCommonInput, type PipelineServices, type ToolCallOutcome } from "../pipeline/run-tool-use.js";
import { toOpenAIToolMessages, type OpenAIToolMessage } from "../providers/openai.js";
import {
  anthropicToolDefinitions,
  openAIToolDefinitions,
  type AnthropicToolDefinition,
  type OpenAIToolDefinition,
} from "../registry/definitions.js";
import { assembleToolPool, getTools, isDeniedOutright } from "../registry/pool.js";
import { findTaskRegistry } from "../tools/tasks/registry.js";
import { childAbortController, createToolUseContext, linkAbort, releaseAbortController } from "../tool/context.js";
import type {
  ConversationMessage,
  PermissionMode,
  PermissionRule,
  Tool,
  ToolResultBlock,
  ToolUseBlock,
  ToolUseContext,
} from "../tool/types.js";

export interface SessionOptions {
  cwd: string;
  /** Built-in and custom tools (default: none; pass `builtinTools()` for the standard set). */
  tools?: readonly Tool[];
  /** Tools from MCP servers: listed after the built-ins, never displacing one. */
  mcpTools?: readonly Tool[];
  permissionMode?: PermissionMode;
  allow?: readonly string[];
  ask?: readonly string[];
  deny?: readonly string[];
  /** Already parsed rules with their sources (settings files); used besides allow/ask/deny. */
  rules?: readonly PermissionRule[];
  additionalDirectories?: readonly string[];
  /** At most this many concurrency-safe calls at once (default: env ARMATURE_MAX_TOOL_CONCURRENCY, else 10). */
  maxConcurrency?: number;
  /** Asked when a call needs approval; without it such calls are denied with the reason. */
  canUseTool?: Approver;
  /** Decides for a human in `auto` mode (only calls the resolver marks classifiable reach it). */
  classifier?: AutoClassifier;
  hooks?: HookRunner;
  /**
   * Replaces the decision function. By default the session runs a permission engine of its
   * own: the resolver, rules remembered by "always allow", the classifier, denial tracking.
   */
  resolvePermission?: PermissionResolver;
  /** Environment added to tool processes. */
  env?: Record<string, string>;
  sessionId?: string;
  /** Where session files go. When not given, a temp folder that close() removes. */
  sessionDir?: string;
  model?: string;
  /** How long a tool that ignores an abort is waited for before it is abandoned (ms, default 2000). */
  abandonGraceMs?: number;
  /** Characters of tool results one turn may add to the context before results go to disk (default 200,000). */
  turnBudgetChars?: number;
  /** Abort running siblings when a shell call fails in `stream` (default true). */
  abortSiblingsOnError?: boolean;
}

export interface RunTurnOptions {
  signal?: AbortSignal;
  onProgress?: (progress: { toolUseId: string; data: unknown }) => void;
}

export interface TurnResult {
  /** tool_result blocks, in tool_use order. */
  results: ToolResultBlock[];
  outcomes: ToolCallOutcome[];
  /** Messages tools asked to add after the results. */
  newMessages: ConversationMessage[];
  /** Notices for the user (hook messages and problems). */
  notices: string[];
  /** A hook asked the agent loop to stop. */
  preventContinuation?: string;
}

export type SessionStreamEvent =
  | { type: "progress"; toolUseId: string; data: unknown }
  | { type: "result"; result: ToolResultBlock; outcome: ToolCallOutcome };

export interface Session {
  /** The current context (after every context modifier so far). */
  readonly context: ToolUseContext;
  /** The tools the model may see, as the provider wants them. */
  toolDefinitions(provider: "anthropic"): Promise<AnthropicToolDefinition[]>;
  toolDefinitions(provider: "openai"): Promise<OpenAIToolDefinition[]>;
  /** Runs one assistant turn's calls; resolves to tool_result blocks in tool_use order. */
  runTurn(blocks: readonly ToolUseBlock[], options?: RunTurnOptions): Promise<ToolResultBlock[]>;
  /** Like runTurn, with every outcome, new messages and notices. */
  runTurnDetailed(blocks: readonly ToolUseBlock[], options?: RunTurnOptions): Promise<TurnResult>;
  /** Runs calls as their blocks arrive; yields progress as it comes and results in order. */
  stream(blocks: AsyncIterable<ToolUseBlock>, options?: RunTurnOptions): AsyncGenerator<SessionStreamEvent>;
  /** tool_result blocks as OpenAI tool messages. */
  toOpenAIToolMessages(results: readonly ToolResultBlock[]): OpenAIToolMessage[];
  /**
   * Runs calls in a sub-agent's context (from `createSubagentContext`) with this session's
   * permission engine, hooks and limits; the runner keeps the sub-agent's context across turns.
   */
  subagent(context: ToolUseContext): SubagentRunner;
  /** Ends background work, removes temp state. Safe to call twice. */
  close(): Promise<void>;
}

/** A sub-agent's own run of calls: its context, its tools, the session's services. */
export interface SubagentRunner {
  readonly context: ToolUseContext;
  toolDefinitions(provider: "anthropic"): Promise<AnthropicToolDefinition[]>;
  stream(blocks: AsyncIterable<ToolUseBlock>, options?: RunTurnOptions): AsyncGenerator<SessionStreamEvent>;
}

/** Where a run of calls reads its context and keeps the one it ends with. */
interface ContextHolder {
  context: ToolUseContext;
  /** The controller a kept context goes back to between turns. */
  readonly rootController: AbortController;
}

/** Where a session puts itself in its context's extensions, for tools that start sub-agents. */
export const SESSION_EXTENSION_KEY = "armature.session";

/** The session a context belongs to (undefined for a context made without one). */
export function sessionOf(context: ToolUseContext): Session | undefined {
  const found = context.extensions.get(SESSION_EXTENSION_KEY);
  return found !== undefined && typeof (found as Session).subagent === "function" ? (found as Session) : undefined;
}

export function createSession(options: SessionOptions): Session {
  const rules = [
    ...(options.rules ?? []),
    ...parseRuleLists({ allow: options.allow, ask: options.ask, deny: options.deny }, "session options"),
  ];
  const maxConcurrency = resolveMaxConcurrency(options.maxConcurrency);
  const pool = assembleToolPool(options.tools ?? [], options.mcpTools ?? []);
  const rootContext = createToolUseContext({
    cwd: options.cwd,
    tools: [],
    permissionMode: options.permissionMode,
    rules,
    additionalDirectories: options.additionalDirectories,
    sessionId: options.sessionId,
    sessionDir: options.sessionDir,
    env: options.env,
    model: options.model,
    canAskUser: options.canUseTool !== undefined || options.hooks?.has("PermissionRequest") === true,
  });
  rootContext.options.tools = getTools(pool, { ...rootContext.permissionContext, rules: [] });
  const rootController = rootContext.abortController;
  const services: PipelineServices = defaultPipelineServices({
    hooks: options.hooks,
    ...permissionServices(options, rootContext.workspace.projectDir),
    ...(options.abandonGraceMs !== undefined ? { abandonGraceMs: options.abandonGraceMs } : {}),
  });
  let context = rootContext;
  let closed = false;
  const postToolBatch = (blocks: readonly ToolUseBlock[], result: TurnResult, after: ToolUseContext): Promise<void> =>
    postToolBatchHooks(options.hooks, blocks, result, after);

  const root: ContextHolder = {
    get context() {
      return context;
    },
    set context(next) {
      context = next;
    },
    rootController,
  };
  const turnContext = (holder: ContextHolder, turnOptions: RunTurnOptions | undefined): ToolUseContext => {
    if (closed) throw new Error("the session is closed");
    const controller = childAbortController(holder.rootController);
    if (turnOptions?.signal) {
      const unlink = linkAbort(turnOptions.signal, controller);
      turnUnlinks.set(controller, unlink);
    }
    return { ...holder.context, abortController: controller };
  };
  const turnUnlinks = new WeakMap<AbortController, () => void>();
  /** Keeps the context a turn ended with, and detaches the turn's controller from both signals. */
  const keep = (holder: ContextHolder, turn: ToolUseContext, after: ToolUseContext): void => {
    releaseAbortController(turn.abortController);
    turnUnlinks.get(turn.abortController)?.();
    holder.context = { ...after, abortController: holder.rootController };
  };
  const definitions = (ctx: ToolUseContext, provider: "anthropic" | "openai") => {
    // Tools that need a human (questions, plan approval) are not offered when nobody can answer.
    const visible = ctx.options.tools.filter(
      (t) => !isDeniedOutright(t, ctx.permissionContext) && (ctx.options.canAskUser || !t.requiresUserInteraction()),
    );
    return provider === "openai" ? openAIToolDefinitions(visible, ctx) : anthropicToolDefinitions(visible, ctx);
  };

  async function* streamIn(holder: ContextHolder, blocks: AsyncIterable<ToolUseBlock>, turnOptions: RunTurnOptions | undefined): AsyncGenerator<SessionStreamEvent> {
    const ctx = turnContext(holder, turnOptions);
    const executor = new StreamingToolExecutor(ctx, services, {
      maxConcurrency,
      abortSiblingsOnError: options.abortSiblingsOnError,
    });
    let feedError: unknown;
    const feeding = (async () => {
      try {
        for await (const block of blocks) executor.addTool(block);
      } catch (err) {
        feedError = err;
        executor.discard();
        return;
      }
      executor.done();
    })();
    const budget = new TurnBudget(ctx.session.dir, options.turnBudgetChars);
    try {
      let last: ToolCallOutcome | undefined;
      for await (const event of executor.events()) {
        if (event.type === "progress") {
          yield event;
          continue;
        }
        event.outcome.block = await budget.admit(event.outcome.block);
        last = event.outcome;
        yield { type: "result", result: event.outcome.block, outcome: event.outcome };
      }
      // Reports of background agents that finished meanwhile join the turn's new messages.
      last?.newMessages.push(...pendingNotifications(executor.context));
      await feeding;
      if (feedError !== undefined) throw feedError;
    } finally {
      executor.discard();
      keep(holder, ctx, executor.context);
    }
  }

  const session: Session = {
    get context() {
      return context;
    },
    toolDefinitions: ((provider: "anthropic" | "openai") => definitions(context, provider)) as Session["toolDefinitions"],

    async runTurnDetailed(blocks, turnOptions) {
      const ctx = turnContext(root, turnOptions);
      const calls = prepareTurn(blocks, ctx);
      const { outcomes, context: after } = await runTools(calls, ctx, services, {
        maxConcurrency,
        onProgress: turnOptions?.onProgress,
      });
      keep(root, ctx, after);
      const budget = new TurnBudget(after.session.dir, options.turnBudgetChars);
      for (const outcome of outcomes) outcome.block = await budget.admit(outcome.block);
      const result = summarize(outcomes);
      result.newMessages.push(...pendingNotifications(after));
      if (outcomes.length > 0) await postToolBatch(blocks, result, after);
      return result;
    },

    async runTurn(blocks, turnOptions) {
      return (await session.runTurnDetailed(blocks, turnOptions)).results;
    },

    stream(blocks, turnOptions) {
      return streamIn(root, blocks, turnOptions);
    },

    toOpenAIToolMessages,

    subagent(subContext) {
      const holder: ContextHolder = { context: subContext, rootController: subContext.abortController };
      return {
        get context() {
          return holder.context;
        },
        toolDefinitions: (provider: "anthropic") => definitions(holder.context, provider) as Promise<AnthropicToolDefinition[]>,
        stream: (blocks, turnOptions) => streamIn(holder, blocks, turnOptions),
      };
    },

    async close() {
      if (closed) return;
      closed = true;
      rootController.abort(new Error("session closed"));
      const cleanups = [...rootContext.session.cleanups];
      rootContext.session.cleanups.clear();
      await Promise.allSettled(cleanups.map(async (fn) => fn()));
      if (options.sessionDir === undefined) await rm(rootContext.session.dir, { recursive: true, force: true });
    },
  };
  rootContext.extensions.set(SESSION_EXTENSION_KEY, session);
  return session;
}

/** The decision function and the approver: the caller's own, or a permission engine around canUseTool. */
function permissionServices(options: SessionOptions, projectDir: string): Pick<PipelineServices, "resolvePermission" | "approver"> {
  if (options.resolvePermission) return { resolvePermission: options.resolvePermission, approver: options.canUseTool };
  const engine = createPermissionEngine({ projectDir, approver: options.canUseTool, classifier: options.classifier });
  return { resolvePermission: engine.resolvePermission, approver: engine.approver };
}

/** PostToolBatch hooks see every call of the turn with what the model saw; their context joins the turn. */
async function postToolBatchHooks(
  hooks: HookRunner | undefined,
  blocks: readonly ToolUseBlock[],
  result: TurnResult,
  context: ToolUseContext,
): Promise<void> {
  if (!hooks?.has("PostToolBatch")) return;
  const out = await runHooks(hooks, "PostToolBatch", {
    ...hookCommonInput(context),
    tool_calls: result.outcomes.map((o, i) => ({
      tool_name: o.tool?.name ?? blocks[i]!.name,
      tool_input: o.input ?? blocks[i]!.input,
      tool_use_id: o.block.tool_use_id,
      tool_response: o.block.content,
    })),
  });
  result.notices.push(...out.systemMessages, ...out.errors);
  const context_ = [...out.additionalContext, ...(out.blockReason !== undefined ? [`PostToolBatch hook feedback: ${out.blockReason}`] : [])];
  if (context_.length > 0) result.newMessages.push({ role: "user", content: context_.join("\n") });
  if (out.stopReason !== undefined && result.preventContinuation === undefined) result.preventContinuation = out.stopReason;
}

/** Notifications of background tasks (agents' reports) that ended since the model was last told. */
export function pendingNotifications(context: ToolUseContext): ConversationMessage[] {
  return (findTaskRegistry(context)?.takeNotifications(context.agent.agentId) ?? []).map((text) => ({ role: "user" as const, content: text }));
}

function summarize(outcomes: ToolCallOutcome[]): TurnResult {
  const result: TurnResult = {
    results: outcomes.map((o) => o.block),
    outcomes,
    newMessages: outcomes.flatMap((o) => o.newMessages),
    notices: outcomes.flatMap((o) => o.notices),
  };
  const stop = outcomes.find((o) => o.preventContinuation !== undefined);
  if (stop?.preventContinuation !== undefined) result.preventContinuation = stop.preventContinuation;
  return result;
}
