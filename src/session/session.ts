import { getEventListeners } from "node:events";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { TurnBudget } from "../budget/turn-budget.js";
import { runHooks } from "../hooks/runner.js";
import type { HookRunner } from "../hooks/types.js";
import { resolveMaxConcurrency } from "../orchestration/concurrency.js";
import { runTools } from "../orchestration/run-tools.js";
import { StreamingToolExecutor } from "../orchestration/streaming-executor.js";
import { parseRule, parseRuleLists } from "../permissions/rule.js";
import { createPermissionEngine, type AutoClassifier, type PermissionEngine } from "../permissions/engine.js";
import type { Approver, PermissionResolver } from "../permissions/types.js";
import { findTaskRegistry } from "../tasks/registry.js";
import { checkToolUse, type ToolUseCheck } from "../pipeline/check-tool-use.js";
import { pendingToolLoads, prepareTurn } from "../pipeline/prepare.js";
import { defaultPipelineServices, hookCommonInput, labelHookContext, type PipelineServices, type RefusalText, type ToolCallOutcome } from "../pipeline/run-tool-use.js";
import { toOpenAIToolMessages, type OpenAIToolMessage } from "../providers/openai.js";
import {
  anthropicToolDefinitions,
  openAIToolDefinitions,
  type AnthropicToolDefinition,
  type OpenAIToolDefinition,
} from "../registry/definitions.js";
import { assembleToolPool, getTools, isDeniedOutright } from "../registry/pool.js";
import { decideDeferredTools, isSchemaLoaded, parseToolSearchMode, toolSearchModeFromEnv, type ToolSearchMode } from "../registry/deferral.js";
import { toolJsonSchema } from "../registry/definitions.js";
import { ToolSearchTool } from "../registry/tool-search/index.js";
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
import { applySnapshot, takeSnapshot, type SessionSnapshot } from "./snapshot.js";
import { TranscriptWriter } from "./transcript.js";
import { TurnGate, type ReleaseTurn, type TurnTicket } from "./turn-gate.js";
import { DEFAULT_SANDBOX_SETTINGS, sandboxInfo, sandboxStatus, type SandboxInfo, type SandboxSettings } from "../sandbox/index.js";

export interface SessionOptions {
  cwd: string;
  /** Built-in and custom tools (default: none; pass `builtinTools()` for the standard set). */
  tools?: readonly Tool[];
  /** Tools from MCP servers: listed after the built-ins, never displacing one. */
  mcpTools?: readonly Tool[];
  /**
   * Tools that change while the session runs (connected MCP servers, see `connectMcpServers`):
   * the pool is rebuilt when they change, in the same cache-stable order, and `close()` closes it.
   */
  toolSource?: DynamicToolSource;
  /**
   * When deferrable tools are sent as names only (loaded with ToolSearch): a mode or its
   * string form (`true`, `false`, `auto`, `auto:N`). Default: env `ARMATURE_ENABLE_TOOL_SEARCH`
   * or `ENABLE_TOOL_SEARCH`, else `auto` (MCP tools deferred past 10 % of the context window).
   */
  toolSearch?: ToolSearchMode | string;
  /** The model's context window in tokens, for the `auto` tool-search threshold (default 200,000). */
  contextWindowTokens?: number;
  permissionMode?: PermissionMode;
  allow?: readonly string[];
  ask?: readonly string[];
  deny?: readonly string[];
  /** Already parsed rules with their sources (settings files); used besides allow/ask/deny. */
  rules?: readonly PermissionRule[];
  additionalDirectories?: readonly string[];
  /** At most this many concurrency-safe calls at once (default: env ARMATURE_MAX_TOOL_CONCURRENCY, else 10). */
  maxConcurrency?: number;
  /**
   * The OS sandbox's settings (the merged `sandbox` key; see `loadSettings`). Default: on with
   * the built-in settings wherever it can run; ARMATURE_SANDBOX=0|1 overrides. `false`: none.
   */
  sandbox?: SandboxSettings | false;
  /** Calls one turn may make; the rest get an error result each, unrun (default 1,000: MAX_TOOL_USES_PER_TURN). */
  maxToolUsesPerTurn?: number;
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
  /** The words of a refused call's result instead of armature's own (`armature agent` gives the reference CLI's). */
  refusalText?: RefusalText;
  /**
   * The model reads PDFs as `document` blocks (Anthropic models do): Read of a PDF without
   * `pages` then gives the file whole instead of its extracted text. Default false.
   */
  pdfDocuments?: boolean;
  /** Characters of tool results one turn may add to the context before results go to disk (default 200,000). */
  turnBudgetChars?: number;
  /** Abort running siblings when a shell call fails in `stream` (default true). */
  abortSiblingsOnError?: boolean;
  /**
   * State saved by `session.snapshot()` in an earlier process: files read (with their hashes),
   * the working directory, rules remembered for the session, background task records.
   */
  restore?: SessionSnapshot;
  /**
   * The host saves `snapshot()` for another process to resume (`exec --session-dir`, `agent`):
   * close then leaves a worktree the session made as it is, locked, for the resumed session
   * (default false: an unchanged one is removed, one with work unlocked).
   */
  resumable?: boolean;
  /**
   * Keep a transcript in the session dir (`transcript.jsonl`: each assistant turn's tool_use
   * blocks, then its tool_result blocks); hooks get its path as `transcript_path`. Default: on
   * when `hooks` are given (without a transcript, hooks get no `transcript_path`).
   */
  transcript?: boolean;
}

export interface RunTurnOptions {
  signal?: AbortSignal;
  onProgress?: (progress: { toolUseId: string; data: unknown }) => void;
  /**
   * Calls (tool_use ids) the host already had a person approve through its own flow (the AI SDK's
   * `needsApproval`, the Agents SDK's interruptions): one that would ask runs as approved, without
   * `canUseTool` or PermissionRequest hooks. Deny rules and denying checks still deny.
   */
  approvedToolUseIds?: readonly string[];
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

/** A set of tools that may change while a session runs (MCP servers). */
export interface DynamicToolSource {
  tools(): readonly Tool[];
  /** Registers a listener called after the tools changed; returns a function that removes it. */
  onToolsChanged(listener: () => void): () => void;
  close(): Promise<void>;
}

/** The tool_use blocks of a turn as they arrive: any iterable, sync (an array) or async (a stream). */
export type SessionStreamInput = Iterable<ToolUseBlock> | AsyncIterable<ToolUseBlock>;

export type SessionStreamEvent =
  | { type: "progress"; toolUseId: string; data: unknown }
  | { type: "result"; result: ToolResultBlock; outcome: ToolCallOutcome };

export interface Session {
  /** The current context (after every context modifier so far). */
  readonly context: ToolUseContext;
  /** The tools the model may see, as the provider wants them. */
  toolDefinitions(provider: "anthropic"): Promise<AnthropicToolDefinition[]>;
  toolDefinitions(provider: "openai"): Promise<OpenAIToolDefinition[]>;
  /**
   * Runs one assistant turn's calls; resolves to tool_result blocks in tool_use order. Turns
   * started while others run wait their turn, first come first served: a turn of
   * concurrency-safe calls only (reads, searches) runs beside others of its kind, any other turn
   * runs alone. Aborting `signal` ends the turn at once, waiting or not: a call not yet started
   * (or waiting for its approval) gets an `is_error` result saying it was interrupted.
   */
  runTurn(blocks: readonly ToolUseBlock[], options?: RunTurnOptions): Promise<ToolResultBlock[]>;
  /** Like runTurn, with every outcome, new messages and notices. */
  runTurnDetailed(blocks: readonly ToolUseBlock[], options?: RunTurnOptions): Promise<TurnResult>;
  /** Runs calls as their blocks arrive; yields progress as it comes and results in order. A streamed turn runs alone (see runTurn). */
  stream(blocks: SessionStreamInput, options?: RunTurnOptions): AsyncGenerator<SessionStreamEvent>;
  /**
   * The permission decision a tool_use would get now (`allow`, `ask`, `deny`, or `invalid` when
   * it would fail before any decision), without running it, asking anyone or running hooks.
   */
  checkPermission(toolUse: ToolUseBlock): Promise<ToolUseCheck>;
  /** What a later process needs to go on with this session (pass it as `restore`). Plain JSON. */
  snapshot(): SessionSnapshot;
  /**
   * Deferred tools the model has not loaded yet, sorted: name them to the model (see
   * `deferredToolsMessage`); ToolSearch loads them.
   */
  deferredToolNames(): string[];
  /** tool_result blocks as OpenAI tool messages. */
  toOpenAIToolMessages(results: readonly ToolResultBlock[]): OpenAIToolMessage[];
  /** What the host may tell its user once: the OS sandbox's state (a `system` event in stream-json). */
  info(): SessionInfo;
  /**
   * Aborts running calls and waits for them to end (every process they started is stopped),
   * ends background work, removes temp state. Never waits on an approver or a hook: they get the
   * aborted signal, and their calls are answered as interrupted. Safe to call twice.
   */
  close(): Promise<void>;
}

export interface SessionInfo {
  sandbox: SandboxInfo;
}

export function createSession(options: SessionOptions): Session {
  const rules = [
    ...(options.rules ?? []),
    ...parseRuleLists({ allow: options.allow, ask: options.ask, deny: options.deny }, "session options"),
  ];
  const maxConcurrency = resolveMaxConcurrency(options.maxConcurrency);
  const toolSearchMode = typeof options.toolSearch === "string" ? parseToolSearchMode(options.toolSearch) : (options.toolSearch ?? toolSearchModeFromEnv());
  const rootContext = createToolUseContext({
    cwd: options.cwd,
    tools: [],
    permissionMode: options.permissionMode,
    rules,
    additionalDirectories: options.additionalDirectories,
    sessionId: options.sessionId ?? options.restore?.sessionId,
    sessionDir: options.sessionDir,
    resumable: options.resumable,
    env: options.env,
    model: options.model,
    canAskUser: options.canUseTool !== undefined || options.hooks?.has("PermissionRequest") === true,
  });
  /** The pool as it is now: rebuilt when the tool source changes; every turn starts from it. */
  const current = { tools: [] as Tool[], deferred: new Set<string>() };
  const rebuildPool = (): void => {
    const builtins = [...(options.tools ?? [])];
    const mcpTools = [...(options.mcpTools ?? []), ...(options.toolSource?.tools() ?? [])];
    const deferrable = [...builtins, ...mcpTools].some((t) => t.shouldDefer && !t.alwaysLoad);
    if ((deferrable || options.toolSource) && !builtins.some((t) => t.name === ToolSearchTool.name)) builtins.push(ToolSearchTool);
    current.tools = getTools(assembleToolPool(builtins, mcpTools), { ...rootContext.permissionContext, rules: [] });
    current.deferred = decideDeferredTools(current.tools, { mode: toolSearchMode, contextWindowTokens: options.contextWindowTokens, schema: toolJsonSchema });
  };
  rebuildPool();
  rootContext.options.tools = current.tools;
  if (options.pdfDocuments === true) rootContext.options.pdfDocuments = true;
  rootContext.options.deferredTools = current.deferred;
  if (options.restore) applySnapshot(rootContext, options.restore);
  // Probed once per process (cached); every shell call's decision names its boundary from it.
  const sandbox = sandboxStatus(options.sandbox === false ? { ...DEFAULT_SANDBOX_SETTINGS, enabled: false } : options.sandbox, process.env);
  const effectiveSandbox = options.sandbox === false ? { ...sandbox, enabled: false, available: false } : sandbox;
  rootContext.permissionContext = { ...rootContext.permissionContext, sandbox: effectiveSandbox };
  const outputs = sessionReadBackRules(rootContext.session.dir);
  if (outputs.length > 0) rootContext.permissionContext = { ...rootContext.permissionContext, rules: [...rootContext.permissionContext.rules, ...outputs] };
  const rootController = rootContext.abortController;
  const permissions = permissionServices(options, rootContext.workspace.projectDir);
  const services: PipelineServices = defaultPipelineServices({
    hooks: options.hooks,
    resolvePermission: permissions.resolvePermission,
    approver: permissions.approver,
    ...(options.abandonGraceMs !== undefined ? { abandonGraceMs: options.abandonGraceMs } : {}),
    ...(options.refusalText ? { refusalText: options.refusalText } : {}),
  });
  // Sub-agents run their calls through the same services (see createContextRunner).
  rootContext.extensions.set("armature.pipelineServices", services);
  const turnServices = (turnOptions: RunTurnOptions | undefined): PipelineServices =>
    turnOptions?.approvedToolUseIds?.length ? { ...services, approvedToolUseIds: new Set(turnOptions.approvedToolUseIds) } : services;
  let context = rootContext;
  let closed = false;
  const withPool = (ctx: ToolUseContext): ToolUseContext => ({
    ...ctx,
    options: { ...ctx.options, tools: current.tools, deferredTools: current.deferred },
  });
  const unsubscribe = options.toolSource?.onToolsChanged(() => {
    rebuildPool();
    context = withPool(context);
  });
  const transcript = (options.transcript ?? options.hooks !== undefined) ? new TranscriptWriter(rootContext.session) : undefined;
  /** The order turns run in when a host starts several at once. */
  const gate = new TurnGate();
  /** Turns under way: close() waits for them, so no process a call started outlives it. */
  const inflight = new Set<Promise<unknown>>();
  const track = <T>(work: Promise<T>): Promise<T> => {
    const settled = work.then(
      () => undefined,
      () => undefined,
    );
    inflight.add(settled);
    void settled.then(() => inflight.delete(settled));
    return work;
  };
  const postToolBatch = (blocks: readonly ToolUseBlock[], result: TurnResult, after: ToolUseContext): Promise<void> =>
    postToolBatchHooks(options.hooks, blocks, result, after);

  /**
   * The last turn's controller, kept for the next turn when nothing of that turn still listens
   * to it: creating an AbortSignal costs Node 20 some 10 µs, a good part of a fast call. A kept
   * controller is what a fresh one would be: a child of the session's, not aborted, with only its
   * own link listening (a turn's own signal is linked for that turn and unlinked at its end).
   */
  let spareController: AbortController | undefined;
  const cleanListenerCount = new WeakMap<AbortController, number>();
  const turnContext = (turnOptions: RunTurnOptions | undefined): ToolUseContext => {
    if (closed) throw new Error("the session is closed");
    let controller = spareController;
    spareController = undefined;
    if (!controller || controller.signal.aborted) {
      if (controller) releaseAbortController(controller);
      controller = childAbortController(rootController);
      cleanListenerCount.set(controller, getEventListeners(controller.signal, "abort").length);
    }
    if (turnOptions?.signal) {
      const unlink = linkAbort(turnOptions.signal, controller);
      turnUnlinks.set(controller, unlink);
    }
    return { ...context, abortController: controller };
  };
  const turnUnlinks = new WeakMap<AbortController, () => void>();
  /** Keeps the context a turn ended with, and detaches the turn's controller from both signals (or keeps it for the next turn). */
  const keep = (turn: ToolUseContext, after: ToolUseContext): void => {
    const controller = turn.abortController;
    turnUnlinks.get(controller)?.();
    turnUnlinks.delete(controller);
    const clean =
      spareController === undefined &&
      !controller.signal.aborted &&
      getEventListeners(controller.signal, "abort").length === cleanListenerCount.get(controller);
    if (clean) spareController = controller;
    else releaseAbortController(controller);
    const samePool = after.options.tools === current.tools && after.options.deferredTools === current.deferred;
    context = samePool ? { ...after, abortController: rootController } : withPool({ ...after, abortController: rootController });
  };

  const session: Session = {
    get context() {
      return context;
    },
    toolDefinitions: ((provider: "anthropic" | "openai") => {
      const nothingDeferred = (context.options.deferredTools?.size ?? 0) === 0;
      // Tools that need a human (questions, plan approval) are not offered when nobody can answer.
      const visible = context.options.tools.filter(
        (t) =>
          !isDeniedOutright(t, context.permissionContext) &&
          !(nothingDeferred && t === ToolSearchTool) &&
          (context.options.canAskUser || !t.requiresUserInteraction()),
      );
      return provider === "openai" ? openAIToolDefinitions(visible, context) : anthropicToolDefinitions(visible, context);
    }) as Session["toolDefinitions"],

    runTurnDetailed(blocks, turnOptions) {
      return track(runTurnDetailed(blocks, turnOptions));
    },

    async runTurn(blocks, turnOptions) {
      return (await session.runTurnDetailed(blocks, turnOptions)).results;
    },

    async *stream(blocks, turnOptions) {
      let finished!: () => void;
      track(new Promise<void>((resolve) => (finished = resolve)));
      try {
        yield* streamTurn(blocks, turnOptions);
      } finally {
        finished();
      }
    },

    async checkPermission(toolUse) {
      return checkToolUse(toolUse, context, services.resolvePermission);
    },

    info() {
      return { sandbox: sandboxInfo(effectiveSandbox) };
    },
    snapshot() {
      return takeSnapshot(context, permissions.engine?.sessionRules ?? []);
    },

    deferredToolNames() {
      return context.options.tools
        .filter(
          (t) =>
            !isSchemaLoaded(t, context) &&
            !isDeniedOutright(t, context.permissionContext) &&
            (context.options.canAskUser || !t.requiresUserInteraction()),
        )
        .map((t) => t.name)
        .sort();
    },

    toOpenAIToolMessages,

    async close() {
      if (closed) return;
      closed = true;
      unsubscribe?.();
      rootController.abort(new Error("session closed"));
      // A call that ignores the abort is abandoned after abandonGraceMs; a shell gets its kill grace.
      await settleWithin([...inflight], (options.abandonGraceMs ?? 2_000) + 5_000);
      const cleanups = [...rootContext.session.cleanups];
      rootContext.session.cleanups.clear();
      await Promise.allSettled([...cleanups.map(async (fn) => fn()), options.toolSource?.close()]);
      if (options.sessionDir === undefined) await rm(rootContext.session.dir, { recursive: true, force: true });
    },
  };
  return session;

  /**
   * Waits for the turn's time (see TurnGate), synchronously when nothing is in the way. A turn
   * that waited starts from the context the turns before it left (their working directory, the
   * files they read), keeping its own signal.
   */
  function admit(ticket: TurnTicket, ctx: ToolUseContext, shared: boolean): ReleaseTurn | Promise<{ release: ReleaseTurn; ctx: ToolUseContext }> {
    const entered = ticket.admit(shared);
    if (typeof entered === "function") return entered;
    return entered.then((release) => ({ release, ctx: { ...context, abortController: ctx.abortController } }));
  }

  async function runTurnDetailed(blocks: readonly ToolUseBlock[], turnOptions: RunTurnOptions | undefined): Promise<TurnResult> {
    let ctx = turnContext(turnOptions);
    // The place in line is taken now, before the tools load: turns run in the order they were started.
    const ticket = gate.reserve(ctx.abortController.signal);
    let place: ReturnType<typeof admit>;
    let calls: ReturnType<typeof prepareTurn>;
    try {
      const loading = pendingToolLoads(blocks, ctx);
      if (loading) await loading;
      calls = prepareTurn(blocks, ctx, options.maxToolUsesPerTurn);
      place = admit(ticket, ctx, calls.every((c) => c.concurrencySafe));
    } catch (err) {
      ticket.cancel();
      throw err;
    }
    let release: ReleaseTurn;
    if (typeof place === "function") release = place;
    else {
      ({ release, ctx } = await place);
      calls = prepareTurn(blocks, ctx, options.maxToolUsesPerTurn);
    }
    try {
      return await runAdmittedTurn(blocks, calls, ctx, turnOptions);
    } finally {
      release();
    }
  }

  async function runAdmittedTurn(
    blocks: readonly ToolUseBlock[],
    calls: ReturnType<typeof prepareTurn>,
    ctx: ToolUseContext,
    turnOptions: RunTurnOptions | undefined,
  ): Promise<TurnResult> {
    if (transcript) await transcript.append("assistant", blocks, ctx.workspace.cwd);
    const { outcomes, context: after } = await runTools(calls, ctx, turnServices(turnOptions), {
      maxConcurrency,
      onProgress: turnOptions?.onProgress,
    });
    keep(ctx, after);
    const budget = new TurnBudget(after.session.dir, options.turnBudgetChars);
    for (const outcome of outcomes) outcome.block = await budget.admit(outcome.block);
    const result = summarize(outcomes);
    // Background tasks that ended since the model was last told: one message each, after the results.
    result.newMessages.push(...pendingNotifications(after));
    if (transcript) await transcript.append("user", result.results, after.workspace.cwd);
    if (outcomes.length > 0 && options.hooks?.has("PostToolBatch")) await postToolBatch(blocks, result, after);
    return result;
  }

  async function* streamTurn(blocks: SessionStreamInput, turnOptions: RunTurnOptions | undefined): AsyncGenerator<SessionStreamEvent> {
    // Which calls will come is not known yet: a streamed turn runs alone.
    const ctx = turnContext(turnOptions);
    const place = admit(gate.reserve(ctx.abortController.signal), ctx, false);
    const { release, ctx: admitted } = typeof place === "function" ? { release: place, ctx } : await place;
    try {
      yield* streamAdmittedTurn(blocks, admitted, turnOptions);
    } finally {
      release();
    }
  }

  async function* streamAdmittedTurn(blocks: SessionStreamInput, ctx: ToolUseContext, turnOptions: RunTurnOptions | undefined): AsyncGenerator<SessionStreamEvent> {
    const executor = new StreamingToolExecutor(ctx, turnServices(turnOptions), {
      maxConcurrency,
      abortSiblingsOnError: options.abortSiblingsOnError,
      ownsController: true,
      ...(options.maxToolUsesPerTurn !== undefined ? { maxCalls: options.maxToolUsesPerTurn } : {}),
    });
    let feedError: unknown;
    const feeding = (async () => {
      try {
        for await (const block of blocks) {
          const loading = pendingToolLoads([block], ctx);
          if (loading) await loading;
          if (transcript) await transcript.append("assistant", [block], ctx.workspace.cwd);
          executor.addTool(block);
        }
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
        // No await per result unless one is persisted or written: a 1,000-call turn stays cheap.
        event.outcome.block = budget.admitAtOnce(event.outcome.block) ?? (await budget.admit(event.outcome.block));
        if (transcript) await transcript.append("user", [event.outcome.block], executor.context.workspace.cwd);
        last = event.outcome;
        yield { type: "result", result: event.outcome.block, outcome: event.outcome };
      }
      // Background tasks that ended meanwhile join the turn's new messages (read after the stream ends).
      last?.newMessages.push(...pendingNotifications(executor.context));
      await feeding;
      if (feedError !== undefined) throw feedError;
    } finally {
      executor.discard();
      keep(ctx, executor.context);
    }
  }
}

/** Waits for every promise to settle, or for `ms`, whichever comes first. */
async function settleWithin(work: readonly Promise<unknown>[], ms: number): Promise<void> {
  if (work.length === 0) return;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    timer.unref();
  });
  await Promise.race([Promise.allSettled(work), timeout]);
  clearTimeout(timer);
}

/** The decision function and the approver: the caller's own, or a permission engine around canUseTool. */
function permissionServices(
  options: SessionOptions,
  projectDir: string,
): Pick<PipelineServices, "resolvePermission" | "approver"> & { engine?: PermissionEngine } {
  if (options.resolvePermission) return { resolvePermission: options.resolvePermission, approver: options.canUseTool };
  const engine = createPermissionEngine({
    projectDir,
    approver: options.canUseTool,
    classifier: options.classifier,
    rememberedRules: options.restore?.rememberedRules,
  });
  return { resolvePermission: engine.resolvePermission, approver: engine.approver, engine };
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
  if (context_.length > 0) result.newMessages.push({ role: "user", content: labelHookContext("PostToolBatch", context_.join("\n")) });
  if (out.stopReason !== undefined && result.preventContinuation === undefined) result.preventContinuation = out.stopReason;
}

/** Notifications of background tasks this agent started that ended since it was last told. */
export function pendingNotifications(context: ToolUseContext): ConversationMessage[] {
  return (findTaskRegistry(context)?.takeEndNotifications(context.agent.agentId) ?? []).map((text) => ({ role: "user" as const, content: text }));
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

/**
 * Background commands and sub-agents write to files in the session folder, and so does the
 * result budget (a result too large to send whole is saved to `tool-results/`); their results
 * tell the model to read them back with Read (Grep, Glob) or TaskOutput, as the reference
 * agent's do: reading them needs no approval. Only these folders of this session, only reads:
 * an allow rule names the folder and its files, and a file is covered only when both its
 * written and its real name are inside (a symlink placed there that leads elsewhere, or the
 * folder swapped for one, still asks). Deny rules still apply. Left out when the folder's path
 * holds glob characters (the rule would not name it).
 */
function sessionReadBackRules(sessionDir: string): PermissionRule[] {
  return (
    [
      ["shell-output", "background task output files"],
      ["agents", "background task output files"],
      ["tool-results", "saved tool results"],
    ] as const
  ).flatMap(([sub, what]) => {
    const dir = join(sessionDir, sub);
    if (/[*?[\]{}()!\\,]/.test(dir)) return [];
    return [parseRule(`Read(/${dir})`, "allow", `session: ${what}`), parseRule(`Read(/${dir}/**)`, "allow", `session: ${what}`)];
  });
}
