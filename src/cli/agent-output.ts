import { randomUUID } from "node:crypto";
import type { AgentEvent, AgentResult } from "../agent/types.js";
import type { CliIO } from "./io.js";

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
  private readonly model: string;

  constructor(
    private readonly io: CliIO,
    private readonly format: OutputFormat,
    private readonly info: InitInfo,
  ) {
    this.model = info.model;
  }

  init(): void {
    if (this.format !== "stream-json") return;
    this.line({
      type: "system",
      subtype: "init",
      cwd: this.info.cwd,
      session_id: this.info.sessionId,
      tools: this.info.tools.map(initToolName),
      mcp_servers: [],
      model: this.model,
      permissionMode: this.info.permissionMode,
      slash_commands: [],
      apiKeySource: this.info.apiKeySource,
      armature_version: "0.1.0",
      provider: this.info.provider,
      output_style: "default",
      agents: [],
      skills: [],
      plugins: [],
      uuid: randomUUID(),
    });
  }

  event(event: AgentEvent): void {
    if (this.format === "stream-json") this.streamJson(event);
    else if (event.type === "notice") this.io.stderr.write(`armature: ${event.text}\n`);
    if (event.type === "result") this.result(event.result);
  }

  private readonly pendingResults: Array<Record<string, unknown>> = [];

  private streamJson(event: AgentEvent): void {
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
      const text = typeof event.result.content === "string" ? event.result.content : event.result.content.map((b) => (b.type === "text" ? b.text : "[image]")).join("\n");
      this.pendingResults.push({
        type: "user",
        message: { role: "user", content: [event.result] },
        ...common,
        tool_use_result: event.result.is_error ? `Error: ${text}` : text,
        tool_result_meta: [{ id: event.result.tool_use_id, permission_decision: permissionMeta(event) }],
      });
    } else if (event.type === "notice") {
      this.io.stderr.write(`armature: ${event.text}\n`);
    }
  }

  private result(result: AgentResult): void {
    if (this.format === "text") {
      if (result.is_error) this.io.stderr.write(`armature: ${result.error ?? result.subtype}\n`);
      if (result.text !== "") this.io.stdout.write(result.text.endsWith("\n") ? result.text : `${result.text}\n`);
      return;
    }
    this.line({
      type: "result",
      subtype: result.subtype,
      is_error: result.is_error,
      result: result.text,
      stop_reason: result.stop_reason,
      terminal_reason: result.terminal_reason,
      num_turns: result.num_turns,
      duration_ms: result.duration_ms,
      duration_api_ms: result.duration_api_ms,
      total_cost_usd: 0,
      usage: result.usage,
      modelUsage: {
        [this.model]: {
          inputTokens: result.usage.input_tokens,
          outputTokens: result.usage.output_tokens,
          cacheReadInputTokens: result.usage.cache_read_input_tokens,
          cacheCreationInputTokens: result.usage.cache_creation_input_tokens,
        },
      },
      permission_denials: result.denials,
      api_error_status: result.api_error_status ?? null,
      ...(result.error !== undefined ? { errors: [result.error] } : {}),
      session_id: this.info.sessionId,
      uuid: randomUUID(),
    });
  }

  private line(value: unknown): void {
    this.io.stdout.write(`${JSON.stringify(value)}\n`);
  }
}

function permissionMeta(event: Extract<AgentEvent, { type: "tool_result" }>): Record<string, string> {
  const decision = event.outcome?.permission;
  if (!decision) return { decision: "accept", source: "none" };
  return { decision: decision.behavior === "deny" ? "reject" : "accept", source: decision.source ?? "mode", reason_type: decision.rule ? "rule" : "mode" };
}
