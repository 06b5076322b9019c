import { runHooks } from "../../hooks/runner.js";
import { hookCommonInput } from "../../pipeline/run-tool-use.js";
import { runAgent } from "../../agent/run-agent.js";
import type { AgentResult, RunAgentOptions } from "../../agent/types.js";
import type { AgentMessage, UserContentBlock } from "../../providers/model.js";
import { PERMISSION_MODES, type PermissionMode } from "../../tool/types.js";
import type { McpManager } from "../../mcp/manager.js";
import type { McpServerEntry } from "../../mcp/config.js";
import type { Usage } from "../../providers/model.js";
import { findTaskRegistry, unknownTaskMessage } from "../../tasks/registry.js";
import { contextUsage, mcpStatusRows } from "./sdk-control.js";
import type { AgentOutput } from "../agent-output.js";
import { usageCostUsd } from "./prices.js";
import type { ControlChannel, ControlRequestEnvelope, StdinMessage } from "./control-channel.js";
import { STRUCTURED_OUTPUT_TOOL, type StructuredOutputHolder } from "./structured-output.js";

/** Control requests of the SDK's protocol armature answers; the rest get an error response naming them. */
export const HANDLED_CONTROL_REQUESTS = [
  "initialize",
  "interrupt",
  "set_permission_mode",
  "set_model",
  "set_max_thinking_tokens",
  "mcp_status",
  "mcp_set_servers",
  "mcp_reconnect",
  "mcp_toggle",
  "stop_task",
  "get_context_usage",
  "get_session_cost",
] as const;

/** Reminders sent when a run with a JSON schema ends without handing in a value. */
const STRUCTURED_OUTPUT_RETRIES = 2;

export interface StreamSessionOptions {
  run: Omit<RunAgentOptions, "prompt" | "signal">;
  channel: ControlChannel;
  output: AgentOutput;
  mcp?: McpManager | undefined;
  structured?: StructuredOutputHolder | undefined;
  /** `--max-budget-usd`: the run stops once the cost so far passes it. */
  maxBudgetUsd?: number | undefined;
  /** The default model (`set_model` with no model, or `default`). */
  defaultModel: string;
  warn(text: string): void;
  /** Told each run's abort (a `can_use_tool` deny with `interrupt: true` stops the run). */
  onRunStart?(abort: (reason: string) => void): void;
  /** Reads the servers of `mcp_set_servers` (hostMcpEntries with the session's folder). */
  hostMcpEntries?(servers: unknown): { entries: McpServerEntry[]; problems: string[] };
  /** A text prompt the session rewrites (a skill's slash command); undefined: kept as it is. */
  expandPrompt?(text: string): string | undefined;
  /** Resolves a model alias of `set_model` (throws for one the provider has no model for). */
  resolveModel?(model: string): string;
}

/**
 * `--input-format stream-json`: user messages arrive on stdin (several, while earlier ones
 * run: they wait their turn), control requests are answered as they come, and each user
 * message runs the loop to a `result` line on the same conversation. Ends when the input ends
 * and nothing is left to run. Resolves to the exit code: 1 when the last result is an error
 * (unless the host interrupted that turn), else 0.
 */
export async function runStreamSession(options: StreamSessionOptions): Promise<number> {
  const { run, channel, output } = options;
  const session = run.session;
  let history: AgentMessage[] = [...(run.messages ?? [])];
  let model = run.model;
  let current: AbortController | undefined;
  const spent = emptyTotals();
  let first = true;
  let lastUsage: Usage | undefined;
  /** The last result was an error (and not the end of a turn the host interrupted): the exit code says so. */
  let lastResultFailed = false;
  let hostInterrupted = false;

  channel.setHandler(async (request) => {
    switch (request.subtype) {
      case "interrupt":
        if (current) hostInterrupted = true;
        current?.abort(new Error("interrupted by the SDK host"));
        return { still_queued: [] };
      case "set_permission_mode": {
        const mode = request.mode;
        if (typeof mode !== "string" || !PERMISSION_MODES.includes(mode as PermissionMode)) throw new Error(`set_permission_mode: ${JSON.stringify(mode)} is not one of ${PERMISSION_MODES.join(", ")}`);
        setMode(mode as PermissionMode);
        return { mode };
      }
      case "set_model": {
        const asked = typeof request.model === "string" && request.model !== "default" ? request.model : options.defaultModel;
        const next = options.resolveModel ? options.resolveModel(asked) : asked;
        model = next;
        output.setModel(next);
        return {};
      }
      case "set_max_thinking_tokens":
        return {};
      case "mcp_status":
        return { mcpServers: mcpStatusRows(options.mcp) };
      case "mcp_set_servers": {
        if (!options.mcp || !options.hostMcpEntries) throw new Error("mcp_set_servers: this session has no MCP manager");
        const { entries, problems } = options.hostMcpEntries(request.servers);
        const result = await options.mcp.setServers(entries);
        for (const problem of problems) {
          const name = /mcpServers\.([^:]+)/.exec(problem)?.[1] ?? "?";
          result.errors[name] = problem;
        }
        return { ...result };
      }
      case "mcp_reconnect": {
        if (typeof request.serverName !== "string") throw new Error("mcp_reconnect: serverName must be a string");
        if (!options.mcp) throw new Error(`no MCP server is named ${JSON.stringify(request.serverName)}`);
        await options.mcp.reconnect(request.serverName);
        return {};
      }
      case "mcp_toggle": {
        if (typeof request.serverName !== "string" || typeof request.enabled !== "boolean") throw new Error("mcp_toggle: serverName must be a string and enabled a boolean");
        if (!options.mcp) throw new Error(`no MCP server is named ${JSON.stringify(request.serverName)}`);
        await options.mcp.setEnabled(request.serverName, request.enabled);
        return {};
      }
      case "stop_task": {
        const id = request.task_id;
        const task = typeof id === "string" ? findTaskRegistry(session.context)?.get(id) : undefined;
        if (!task) throw new Error(unknownTaskMessage(String(id)));
        if (task.status === "running") await task.stop();
        output.taskEnded(task);
        return {};
      }
      case "get_context_usage":
        return contextUsage({ model, system: run.system ?? "", context: session.context, messages: history, lastUsage });
      case "get_session_cost":
        return { total_cost_usd: spent.cost, usage: spent.usage };
      case "initialize":
        throw new Error("initialize: the session is already initialized");
      default:
        throw new Error(`armature does not implement the control request ${JSON.stringify(request.subtype)}`);
    }
  });

  function setMode(mode: PermissionMode): void {
    session.context.permissionContext = { ...session.context.permissionContext, mode };
  }

  for (;;) {
    const message = await channel.next();
    if (message === undefined) break;
    let prompt = promptOf(message);
    // A slash command is a prompt of one text (the SDK sends a string prompt as one text block).
    const only = typeof prompt === "string" ? prompt : prompt?.length === 1 && prompt[0]?.type === "text" ? prompt[0].text : undefined;
    const expanded = only === undefined ? undefined : options.expandPrompt?.(only);
    if (expanded !== undefined) prompt = expanded;
    if (prompt === undefined) {
      options.warn(`stdin: a message of type ${JSON.stringify(message.type)} is not a user message; skipped`);
      continue;
    }
    if (first) output.init();
    current = new AbortController();
    hostInterrupted = false;
    const controller = current;
    options.onRunStart?.((reason) => controller.abort(new Error(reason)));
    let result: AgentResult | undefined;
    let prompts: Array<string | UserContentBlock[]> = [prompt];
    let reminders = 0;
    let budgetStop = false;
    while (prompts.length > 0) {
      const next = prompts.shift()!;
      const runCost = emptyTotals();
      const max = options.maxBudgetUsd;
      // The budget is checked when a reply is complete, before its calls run (as the reference does).
      const overBudget = max === undefined ? undefined : (reply: Usage): boolean => spent.cost + runCost.cost + (usageCostUsd(model, reply) ?? 0) > max;
      for await (const event of runAgent({ ...run, model, messages: history, prompt: next, signal: controller.signal, sessionStart: first ? undefined : "none", sessionEnd: false, ...(overBudget ? { overBudget } : {}) })) {
        if (event.type === "assistant_message") {
          lastUsage = event.usage;
          addTotals(runCost, model, event.usage);
        }
        if (event.type === "result") {
          result = event.result;
          if (result.subtype === "error_max_budget_usd") budgetStop = true;
        }
        output.event(event, { holdResult: true });
      }
      first = false;
      if (!result) break;
      history = result.messages;
      const more = options.structured && !options.structured.given && !result.is_error && !budgetStop && reminders < STRUCTURED_OUTPUT_RETRIES;
      if (more) {
        reminders++;
        prompts = [`Hand in the answer now: call the ${STRUCTURED_OUTPUT_TOOL} tool with an input that fits its schema.`];
      }
    }
    current = undefined;
    if (!result) continue;
    addTotals(spent, model, result.usage);
    const extras: Parameters<AgentOutput["writeResult"]>[1] = {};
    if (budgetStop) extras.error = `stopped: the cost passed --max-budget-usd ${options.maxBudgetUsd}`;
    else if (options.structured) {
      if (options.structured.given) extras.structuredOutput = options.structured.value;
      else if (!result.is_error) Object.assign(extras, { subtype: "error_max_structured_output_retries", error: `the model did not call ${STRUCTURED_OUTPUT_TOOL} with a valid value` });
      options.structured.given = false;
      delete options.structured.value;
    }
    output.writeResult(result, extras);
    lastResultFailed = (result.is_error || extras.subtype !== undefined) && !hostInterrupted;
    // A one-shot host (a string prompt) ends the input after this result; a streaming one sends more.
  }
  await runHooks(run.hooks, "SessionEnd", { ...hookCommonInput(session.context), reason: "prompt_input_exit" });
  // As the reference: an error result last (max turns, a budget stop, an API error, a deny that
  // interrupted) exits 1, so the SDK's query() throws "Claude Code returned an error result".
  return lastResultFailed ? 1 : 0;
}

function emptyTotals(): { cost: number; usage: { input_tokens: number; output_tokens: number; cache_creation_input_tokens: number; cache_read_input_tokens: number } } {
  return { cost: 0, usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } };
}

function addTotals(totals: ReturnType<typeof emptyTotals>, model: string, usage: ReturnType<typeof emptyTotals>["usage"]): void {
  totals.cost += usageCostUsd(model, usage) ?? 0;
  totals.usage.input_tokens += usage.input_tokens;
  totals.usage.output_tokens += usage.output_tokens;
  totals.usage.cache_creation_input_tokens += usage.cache_creation_input_tokens;
  totals.usage.cache_read_input_tokens += usage.cache_read_input_tokens;
}

/** A stdin `user` message's content as a prompt (text and images; other blocks are left out). */
export function promptOf(message: StdinMessage): string | UserContentBlock[] | undefined {
  if (message.type !== "user") return undefined;
  const inner = message.message as { content?: unknown } | undefined;
  const content = inner?.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  const blocks: UserContentBlock[] = [];
  for (const b of content as Array<Record<string, unknown>>) {
    if (b?.type === "text" && typeof b.text === "string") blocks.push({ type: "text", text: b.text });
    else if (b?.type === "image") blocks.push(b as unknown as UserContentBlock);
  }
  return blocks.length > 0 ? blocks : undefined;
}

export type { ControlRequestEnvelope };
