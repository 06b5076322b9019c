import { randomUUID } from "node:crypto";
import type { AgentEvent, AgentResult } from "../agent/types.js";
import { addUsage, emptyUsage, type Usage } from "../providers/model.js";
import type { CliIO } from "./io.js";
import type { BackgroundTask, TaskRegistry } from "../tasks/registry.js";
import type { ApiRetry } from "../providers/retry-observer.js";
import { usageCostUsd } from "./agent/prices.js";
import { toolUseResult } from "./agent/tool-use-result.js";
import { CLAUDE_CODE_PROTOCOL_VERSION } from "./agent/protocol-version.js";

export const OUTPUT_FORMATS = ["text", "json", "stream-json"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export interface InitInfo {
  cwd: string;
  sessionId: string;
  model: string;
  tools: string[];
  permissionMode: string;
  apiKeySource: string;
  provider: string;
  /** MCP servers and their state (`connected`, `failed`, `pending`). */
  mcpServers?: () => Array<{ name: string; status: string }>;
  /** Sub-agent types the model may start. */
  agents?: string[];
  /** Names of the skills the model may load with the Skill tool. */
  skills?: string[];
  /** Reference flags accepted with no effect here (listed so a host can tell). */
  ignoredFlags?: string[];
  /** `--include-partial-messages`: `stream_event` lines with the model's deltas. */
  includePartialMessages?: boolean;
  /** Set by the output: where the provider's retries go (`system/api_retry`). */
  retries?: { emit?: (retry: ApiRetry) => void };
  /**
   * The session's task registry: a task the stream announced (`task_started`) becomes
   * `task_updated` and `task_notification` when the model is told of its end.
   */
  tasks?: () => TaskRegistry;
  /**
   * The session's tokens per model so far (a resumed session's saved totals): the result's
   * `modelUsage` and `total_cost_usd` count from there, over the whole session, as the reference's.
   */
  sessionUsage?: Record<string, Usage>;
  /** Told the session's totals after each result (to save them beside the conversation). */
  onSessionUsage?: (totals: Record<string, Usage>) => void;
}

/** What the result line adds beyond the loop's result (structured output, a budget stop). */
export interface ResultExtras {
  structuredOutput?: unknown;
  subtype?: string;
  error?: string;
}

/** The reference agent calls the sub-agent tool `Task` in `init.tools`; so do we. */
function initToolName(name: string): string {
  return name === "Agent" ? "Task" : name;
}

/**
 * Writes the run in one of the output formats. `stream-json` follows the reference agent's
 * event stream: `system/init`, one `assistant` event per content block (same message id), one
 * `user` event per tool_result, and a final `result`.
 */
export class AgentOutput {
  private model: string;
  /** Index of the next content block in the message being streamed (for `stream_event`). */
  private blockIndex = 0;
  private blockOpen = false;
  private messageOpen = false;

  constructor(
    private readonly io: CliIO,
    private readonly format: OutputFormat,
    private readonly info: InitInfo,
  ) {
    this.model = info.model;
    for (const [model, usage] of Object.entries(info.sessionUsage ?? {})) this.sessionUsage.set(model, { ...emptyUsage(), ...usage });
    if (info.retries && format === "stream-json") info.retries.emit = (retry) => this.apiRetry(retry);
    if (info.tasks && format === "stream-json") info.tasks().onReported.add((task) => this.taskReported(task));
  }

  /** The reference's `system/api_retry`: a failed model request the SDK is about to send again. */
  private apiRetry(retry: ApiRetry): void {
    const kind = retry.status === 429 ? "rate_limit" : retry.status === 529 ? "overloaded" : retry.status === 401 ? "authentication_failed" : retry.status !== null && retry.status >= 500 ? "server_error" : "unknown";
    this.line({ type: "system", subtype: "api_retry", attempt: retry.attempt, max_retries: retry.maxRetries, retry_delay_ms: retry.delayMs, error_status: retry.status, error: kind, uuid: randomUUID(), session_id: this.info.sessionId });
  }

  init(): void {
    if (this.format !== "stream-json") return;
    this.line({
      type: "system",
      subtype: "init",
      cwd: this.info.cwd,
      session_id: this.info.sessionId,
      tools: this.info.tools.map(initToolName),
      mcp_servers: this.info.mcpServers?.() ?? [],
      model: this.model,
      permissionMode: this.info.permissionMode,
      slash_commands: [],
      apiKeySource: this.info.apiKeySource,
      claude_code_version: CLAUDE_CODE_PROTOCOL_VERSION,
      armature_version: "0.1.0",
      provider: this.info.provider,
      output_style: "default",
      agents: this.info.agents ?? [],
      skills: this.info.skills ?? [],
      plugins: [],
      ...(this.info.ignoredFlags && this.info.ignoredFlags.length > 0 ? { armature_ignored_flags: this.info.ignoredFlags } : {}),
      uuid: randomUUID(),
    });
  }

  /** The model of the next turns (`set_model`). */
  setModel(model: string): void {
    this.model = model;
  }

  /** The result line now (the SDK driver holds it back to add structured output). */
  writeResult(result: AgentResult, extras: ResultExtras = {}): void {
    this.result(result, extras);
  }

  event(event: AgentEvent, options: { holdResult?: boolean } = {}): void {
    if (event.type === "tool_progress") this.subagent(event.toolUseId, event.data);
    if (event.type === "tool_result") this.toolResults++;
    if (this.format === "stream-json") this.streamJson(event);
    else if (event.type === "notice") this.io.stderr.write(`armature: ${event.text}\n`);
    if (event.type === "result" && !options.holdResult) this.result(event.result);
  }

  /**
   * `--include-partial-messages`: the reference's `stream_event` lines, the Anthropic stream's own
   * events: message_start, content_block_start / _delta / _stop per block (text and thinking as
   * they stream; a tool call's input as input_json_deltas as it streams — or, from a provider
   * that gives no pieces, one once the block is complete), then
   * message_delta and message_stop.
   */
  private partial(event: AgentEvent): void {
    const wrap = (inner: Record<string, unknown>): void =>
      this.line({ type: "stream_event", event: inner, parent_tool_use_id: null, session_id: this.info.sessionId, uuid: randomUUID() });
    const start = (messageId: string | undefined, usage: Usage | undefined): void => {
      if (this.messageOpen) return;
      this.messageOpen = true;
      wrap({
        type: "message_start",
        message: { id: messageId ?? `msg_${randomUUID().replaceAll("-", "")}`, type: "message", role: "assistant", model: this.model, content: [], stop_reason: null, stop_sequence: null, usage: usage ?? emptyUsage() },
      });
    };
    if (event.type === "text_delta" || event.type === "thinking_delta") {
      start(undefined, undefined);
      if (!this.blockOpen) {
        this.blockOpen = true;
        wrap({ type: "content_block_start", index: this.blockIndex, content_block: event.type === "text_delta" ? { type: "text", text: "" } : { type: "thinking", thinking: "", signature: "" } });
      }
      wrap({ type: "content_block_delta", index: this.blockIndex, delta: event.type === "text_delta" ? { type: "text_delta", text: event.text } : { type: "thinking_delta", thinking: event.text } });
    } else if (event.type === "tool_input_delta") {
      start(undefined, undefined);
      if (!this.blockOpen) {
        this.blockOpen = true;
        wrap({ type: "content_block_start", index: this.blockIndex, content_block: { type: "tool_use", id: event.id, name: event.name, input: {} } });
      }
      wrap({ type: "content_block_delta", index: this.blockIndex, delta: { type: "input_json_delta", partial_json: event.partialJson } });
    } else if (event.type === "assistant_block") {
      start(event.messageId, event.usage);
      const block = event.block;
      if (!this.blockOpen && block.type === "tool_use") {
        wrap({ type: "content_block_start", index: this.blockIndex, content_block: { type: "tool_use", id: block.id, name: block.name, input: {} } });
        wrap({ type: "content_block_delta", index: this.blockIndex, delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input ?? {}) } });
      } else if (!this.blockOpen) {
        wrap({ type: "content_block_start", index: this.blockIndex, content_block: block });
      }
      wrap({ type: "content_block_stop", index: this.blockIndex });
      this.blockOpen = false;
      this.blockIndex++;
    } else if (event.type === "assistant_message") {
      start(event.messageId, event.usage);
      wrap({ type: "message_delta", delta: { stop_reason: event.stopReason, stop_sequence: null }, usage: event.usage });
      wrap({ type: "message_stop" });
      this.blockIndex = 0;
      this.blockOpen = false;
      this.messageOpen = false;
    }
  }

  private readonly pendingResults: Array<Record<string, unknown>> = [];
  /** The main thread's tool results since the last result line (the reference's num_turns counts them). */
  private toolResults = 0;

  /** Result lines written so far (the reference's `result_index`). */
  private results = 0;

  /** Tokens of the sub-agents' requests since the last result, per model: the result's usage includes them. */
  private readonly subagentUsage = new Map<string, Usage>();

  /** Tokens per model over the session (resume included): the results' modelUsage and cost. */
  private readonly sessionUsage = new Map<string, Usage>();

  /** A sub-agent's event, forwarded as progress of the parent's Agent call. */
  private subagent(parentToolUseId: string, data: unknown): void {
    const forwarded = subagentEvent(data);
    if (!forwarded) return;
    const { event, model } = forwarded;
    if (event.type === "assistant_message") {
      const total = this.subagentUsage.get(model) ?? emptyUsage();
      addUsage(total, event.usage);
      this.subagentUsage.set(model, total);
    }
    if (this.format !== "stream-json") return;
    const common = { parent_tool_use_id: parentToolUseId, session_id: this.info.sessionId, uuid: randomUUID(), timestamp: new Date().toISOString() };
    if (event.type === "assistant_message") {
      for (const block of event.message.content) {
        this.line({
          type: "assistant",
          message: { id: event.messageId, type: "message", role: "assistant", model, content: [block], stop_reason: null, stop_sequence: null, usage: event.usage, context_management: null },
          ...common,
          uuid: randomUUID(),
        });
      }
      this.flushSubagent(parentToolUseId);
    } else if (event.type === "tool_result") {
      // Its calls start while the reply streams: their results follow the reply's blocks, as on the main thread.
      const held = this.subagentResults.get(parentToolUseId) ?? [];
      held.push({ type: "user", message: { role: "user", content: [event.result] }, ...common, tool_use_result: toolUseResult(event.toolName, event.result, event.outcome?.data) });
      this.subagentResults.set(parentToolUseId, held);
    }
  }

  /** A sub-agent's tool results held until its reply's blocks are out (see subagent). */
  private readonly subagentResults = new Map<string, Array<Record<string, unknown>>>();

  private flushSubagent(parentToolUseId: string): void {
    for (const held of this.subagentResults.get(parentToolUseId) ?? []) this.line(held);
    this.subagentResults.delete(parentToolUseId);
  }

  private streamJson(event: AgentEvent): void {
    if (this.info.includePartialMessages) this.partial(event);
    const common = { parent_tool_use_id: null, session_id: this.info.sessionId, uuid: randomUUID(), timestamp: new Date().toISOString() };
    if (event.type === "assistant_block") {
      this.line({
        type: "assistant",
        message: {
          id: event.messageId,
          type: "message",
          role: "assistant",
          model: this.model,
          content: [event.block],
          stop_reason: null,
          stop_sequence: null,
          usage: event.usage,
          context_management: null,
        },
        ...common,
      });
    } else if (event.type === "assistant_message") {
      // Results of calls that finished while the model still streamed follow its last block,
      // as in the reference's stream: every assistant block first, then the user events.
      for (const pending of this.pendingResults.splice(0)) this.line(pending);
    } else if (event.type === "tool_result") {
      this.flushSubagent(event.result.tool_use_id);
      const started = taskStarted(event.toolName, event.result.tool_use_id, event.outcome?.data);
      if (started) {
        const taskId = String(started.task_id);
        // The task's own description (the Bash call's `description`, else its command).
        const registered = this.info.tasks?.().get(taskId);
        if (registered) started.description = registered.description;
        this.announced.set(taskId, { task_id: taskId, task_type: started.task_type, description: started.description, tool_use_id: event.result.tool_use_id });
        this.pendingResults.push(this.backgroundTasksChanged());
        this.pendingResults.push({ type: "system", subtype: "task_started", ...started, is_backgrounded: true, session_id: this.info.sessionId, uuid: randomUUID() });
      }
      // A call the permission rules or mode refused (not a hook's): the reference's permission_denied.
      const permission = event.outcome?.permission;
      if (permission?.behavior === "deny" && permission.source !== "hook") {
        const message = typeof event.result.content === "string" ? event.result.content : event.result.content.map((b) => (b.type === "text" ? b.text : "")).join("\n");
        this.pendingResults.push({ type: "system", subtype: "permission_denied", tool_name: event.toolName, tool_use_id: event.result.tool_use_id, message, uuid: randomUUID(), session_id: this.info.sessionId });
      }
      this.pendingResults.push({
        type: "user",
        message: { role: "user", content: [event.result] },
        ...common,
        tool_use_result: toolUseResult(event.toolName, event.result, event.outcome?.data),
        tool_result_meta: [{ id: event.result.tool_use_id, permission_decision: permissionMeta(event) }],
      });
    } else if (event.type === "notice") {
      this.io.stderr.write(`armature: ${event.text}\n`);
    }
  }

  /** Background tasks announced with `task_started` whose end the model has not been told yet. */
  private readonly announced = new Map<string, { task_id: string; task_type: unknown; description: unknown; tool_use_id: string }>();

  /** The reference's `background_tasks_changed`: the background tasks still open. */
  private backgroundTasksChanged(): Record<string, unknown> {
    const tasks = [...this.announced.values()].map(({ tool_use_id: _id, ...task }) => task);
    return { type: "system", subtype: "background_tasks_changed", tasks, uuid: randomUUID(), session_id: this.info.sessionId };
  }

  /**
   * The model is told of an announced task's end (its notification joins the conversation,
   * TaskOutput read it, TaskStop stopped it): the reference's task_updated, task_notification
   * and background_tasks_changed lines, at that moment as in its stream.
   */
  /** A task the host stopped (`stop_task`): its end lines now, as the reference's stream has them. */
  taskEnded(task: BackgroundTask): void {
    if (this.format === "stream-json") this.taskReported(task);
  }

  private taskReported(task: BackgroundTask): void {
    const open = this.announced.get(task.id);
    if (!open) return;
    this.announced.delete(task.id);
    const status = task.status === "killed" ? "stopped" : task.status;
    const code = task.exitCode === undefined || task.exitCode === null ? "" : ` (exit code ${task.exitCode})`;
    const what = task.type === "local_bash" ? `Background command "${task.description}"` : `Background task "${task.description}"`;
    const common = { session_id: this.info.sessionId };
    this.line({ type: "system", subtype: "task_updated", task_id: task.id, patch: { status: task.status, end_time: task.endedAt ?? Date.now() }, uuid: randomUUID(), ...common });
    this.line({
      type: "system",
      subtype: "task_notification",
      task_id: task.id,
      tool_use_id: open.tool_use_id,
      status,
      output_file: task.outputPath,
      summary: `${what} ${task.status === "killed" ? "was stopped" : `${task.status}${code}`}`,
      uuid: randomUUID(),
      ...common,
    });
    this.line(this.backgroundTasksChanged());
  }

  private result(result: AgentResult, extras: ResultExtras = {}): void {
    if (this.format === "text") {
      if (result.is_error) this.io.stderr.write(`armature: ${result.error ?? result.subtype}\n`);
      if (result.text !== "") this.io.stdout.write(result.text.endsWith("\n") ? result.text : `${result.text}\n`);
      return;
    }
    // A failed model request reads as the reference's: a synthetic assistant message "API Error:
    // STATUS MESSAGE" and a `success` result with is_error, that text as its result.
    const apiErrorText = result.terminal_reason === "model_error" && result.api_error_status !== undefined ? `API Error: ${result.api_error_status} ${result.api_error?.message ?? result.error ?? ""}`.trim() : undefined;
    if (apiErrorText !== undefined && this.format === "stream-json") this.apiErrorMessage(apiErrorText, result);
    // The run's usage includes the sub-agents' requests; modelUsage and the cost count the whole
    // session, every model (sub-agents' too), from a resumed session's saved totals on.
    const usage = { ...result.usage };
    this.addSessionUsage(this.model, result.usage);
    for (const [model, sub] of this.subagentUsage) {
      addUsage(usage, sub);
      this.addSessionUsage(model, sub);
    }
    this.subagentUsage.clear();
    const modelUsage: Record<string, Record<string, number>> = {};
    let cost: number | undefined = 0;
    for (const [model, total] of this.sessionUsage) {
      const modelCost = usageCostUsd(model, total);
      modelUsage[model] = modelUsageRow(total, modelCost);
      // The main model's price decides whether the total is known (an unpriced sub-agent model adds 0).
      if (modelCost === undefined && model === this.model) cost = undefined;
      else if (cost !== undefined) cost += modelCost ?? 0;
    }
    if (cost !== undefined) cost = Math.round(cost * 1e8) / 1e8;
    this.info.onSessionUsage?.(Object.fromEntries(this.sessionUsage));
    // The reference counts the user messages of the run: the prompt, each tool result, and each
    // note the loop added (a background task's end), so never fewer than the model requests.
    const numTurns = Math.max(1 + this.toolResults, result.num_turns);
    this.toolResults = 0;
    const resultIndex = this.results++;
    const error = extras.error ?? result.error;
    this.line({
      type: "result",
      subtype: extras.subtype ?? (apiErrorText !== undefined ? "success" : result.subtype),
      is_error: result.is_error || extras.subtype !== undefined,
      // With a JSON schema the reference's `result` is the value handed in, as JSON text.
      result: apiErrorText ?? ("structuredOutput" in extras ? JSON.stringify(extras.structuredOutput) : result.text),
      stop_reason: result.stop_reason,
      terminal_reason: apiErrorText !== undefined ? "api_error" : result.terminal_reason,
      num_turns: numTurns,
      duration_ms: result.duration_ms,
      duration_api_ms: result.duration_api_ms,
      total_cost_usd: cost ?? 0,
      ...(cost === undefined ? { armature_cost_note: `no price known for model ${this.model}; total_cost_usd is 0` } : {}),
      usage,
      modelUsage,
      permission_denials: result.denials,
      api_error_status: result.api_error_status ?? null,
      ...(result.api_error?.type !== undefined ? { api_error_type: result.api_error.type } : {}),
      ...(apiErrorText !== undefined ? { errors: [apiErrorText] } : error !== undefined ? { errors: [error] } : {}),
      ...("structuredOutput" in extras ? { structured_output: extras.structuredOutput } : {}),
      result_index: resultIndex,
      session_id: this.info.sessionId,
      uuid: randomUUID(),
    });
  }

  private addSessionUsage(model: string, usage: Usage): void {
    if (usage.input_tokens + usage.output_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens === 0) return;
    const total = this.sessionUsage.get(model) ?? emptyUsage();
    addUsage(total, usage);
    this.sessionUsage.set(model, total);
  }

  private apiErrorMessage(text: string, result: AgentResult): void {
    const status = result.api_error_status ?? 0;
    const kind = status === 401 ? "authentication_failed" : status === 429 ? "rate_limit" : status >= 500 ? "server_error" : "unknown";
    this.line({
      type: "assistant",
      message: { id: randomUUID(), type: "message", role: "assistant", model: "<synthetic>", content: [{ type: "text", text }], stop_reason: "stop_sequence", stop_sequence: "", usage: emptyUsage(), context_management: null },
      parent_tool_use_id: null,
      session_id: this.info.sessionId,
      uuid: randomUUID(),
      timestamp: new Date().toISOString(),
      error: kind,
      is_api_error_message: true,
      api_error_status: status,
      ...(result.api_error?.type !== undefined ? { api_error_type: result.api_error.type } : {}),
    });
  }

  private line(value: unknown): void {
    this.io.stdout.write(`${JSON.stringify(value)}\n`);
  }
}

/** A call that started background work (Bash moved or run in the background, a background agent): the reference's `task_started`. */
function taskStarted(toolName: string, toolUseId: string, data: unknown): Record<string, unknown> | undefined {
  if (typeof data !== "object" || data === null) return undefined;
  const d = data as Record<string, unknown>;
  if (toolName === "Bash" && typeof d.backgroundTaskId === "string") {
    return { task_id: d.backgroundTaskId, tool_use_id: toolUseId, description: typeof d.description === "string" ? d.description : "background command", task_type: "local_bash" };
  }
  if (toolName === "Agent" && d.status === "async_launched" && typeof d.agentId === "string") {
    return { task_id: d.agentId, tool_use_id: toolUseId, description: typeof d.description === "string" ? d.description : "background agent", task_type: "local_agent", ...(typeof d.agentType === "string" ? { subagent_type: d.agentType } : {}) };
  }
  return undefined;
}

function modelUsageRow(usage: Usage, cost: number | undefined): Record<string, number> {
  return {
    inputTokens: usage.input_tokens,
    outputTokens: usage.output_tokens,
    cacheReadInputTokens: usage.cache_read_input_tokens,
    cacheCreationInputTokens: usage.cache_creation_input_tokens,
    costUSD: cost ?? 0,
  };
}

/** The Agent tool's progress: `{agentId, model, event}` with one of the sub-agent's loop events. */
function subagentEvent(data: unknown): { event: AgentEvent; model: string } | undefined {
  if (typeof data !== "object" || data === null) return undefined;
  const d = data as { agentId?: unknown; model?: unknown; event?: { type?: unknown } };
  if (typeof d.agentId !== "string" || typeof d.event?.type !== "string") return undefined;
  return { event: d.event as AgentEvent, model: typeof d.model === "string" ? d.model : "" };
}

function permissionMeta(event: Extract<AgentEvent, { type: "tool_result" }>): Record<string, string> {
  const decision = event.outcome?.permission;
  if (!decision) return { decision: "accept", source: "none" };
  return { decision: decision.behavior === "deny" ? "reject" : "accept", source: decision.source ?? "mode", reason_type: decision.rule ? "rule" : "mode" };
}
