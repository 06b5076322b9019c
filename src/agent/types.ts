import type { HookRunner } from "../hooks/types.js";
import type { ToolCallOutcome } from "../pipeline/run-tool-use.js";
import type { AgentMessage, AssistantContentBlock, ModelProvider, ReasoningEffort, StopReason, Usage, UserContentBlock } from "../providers/model.js";
import type { AnthropicToolDefinition } from "../registry/definitions.js";
import type { RunTurnOptions, SessionStreamEvent } from "../session/session.js";
import type { ToolResultBlock, ToolUseBlock, ToolUseContext } from "../tool/types.js";

/**
 * What the loop needs from a session: its tools as definitions, and a streaming run of calls
 * in its context. A `Session` is one; a sub-agent supplies one around its own context.
 */
export interface AgentToolRunner {
  readonly context: ToolUseContext;
  toolDefinitions(provider: "anthropic"): Promise<AnthropicToolDefinition[]>;
  stream(blocks: AsyncIterable<ToolUseBlock>, options?: RunTurnOptions): AsyncGenerator<SessionStreamEvent>;
  /** Deferred tools the model has not loaded yet (named in the system prompt; ToolSearch loads them). */
  deferredToolNames?(): string[];
}

export interface RunAgentOptions {
  session: AgentToolRunner;
  provider: ModelProvider;
  model: string;
  /** The user's new prompt (a string, or text and image blocks). */
  prompt?: string | UserContentBlock[];
  /** The conversation so far (a resumed session); the prompt, when given, is added after it. */
  messages?: readonly AgentMessage[];
  /** The system prompt (see `buildSystemPrompt`); empty when not given. */
  system?: string;
  /** At most this many model requests (default: no limit). */
  maxTurns?: number;
  /** `max_tokens` of each request (default 16384). */
  maxTokens?: number;
  /** Reasoning effort of each request, where the provider has one (Anthropic's `output_config.effort`); other providers ignore it. */
  effort?: ReasoningEffort;
  signal?: AbortSignal;
  /** Hooks of the loop's events (SessionStart, UserPromptSubmit, Stop, SessionEnd). */
  hooks?: HookRunner;
  /** Where the transcript hooks are given goes (default: `<session dir>/transcript.jsonl`). */
  transcriptPath?: string;
  /** Another JSONL file each message is appended to (the saved conversation, for `--resume`). */
  conversationPath?: string;
  /** SessionStart's `source` (default `resume` when `messages` are given, else `startup`); `none` skips the hook. */
  sessionStart?: "startup" | "resume" | "none";
  /** Fire SessionEnd when the run ends (default true; an interactive host fires it once at exit). */
  sessionEnd?: boolean;
  /** For sub-agents: the id put on every event (the parent's Agent tool_use id). */
  parentToolUseId?: string;
  /**
   * Asked once each reply is complete, before its tool calls run, with the reply's usage: true
   * stops the run there (`--max-budget-usd`): the calls are answered as not run, and the result
   * is `error_max_budget_usd`. With it set, a reply's calls start when the reply is complete
   * rather than as each block arrives.
   */
  overBudget?: (replyUsage: Usage) => boolean;
  /** A successful call of one of these tools ends the run, with no further request (StructuredOutput). */
  endAfterTools?: readonly string[];
  /**
   * When the model ends its turn while background agents or promised commands still run (or
   * ended unreported), wait for them and give the model a turn for their ends, in this run
   * (default true). `false`: the run ends there; the host reports them (`armature agent -p`
   * does, in a run of its own after the result, as the reference CLI).
   */
  awaitBackground?: boolean;
  /**
   * Characters of tool results the conversation may hold before the oldest large ones are
   * replaced by a placeholder naming the file that keeps them (microcompact; default 400,000;
   * `false` turns it off). A PreCompact hook runs first and may block it.
   */
  contextBudgetChars?: number | false;
}

/** A call the permission engine or a hook denied, as the reference's `permission_denials` lists them. */
export interface PermissionDenial {
  tool_name: string;
  tool_use_id: string;
  tool_input: unknown;
  reason: string;
}

export type AgentResultSubtype = "success" | "error_max_turns" | "error_during_execution" | "error_max_budget_usd";

export interface AgentResult {
  subtype: AgentResultSubtype;
  is_error: boolean;
  /** The text of the last assistant message. */
  text: string;
  /** The whole conversation, this run's messages included. */
  messages: AgentMessage[];
  usage: Usage;
  /** Model requests made. */
  num_turns: number;
  duration_ms: number;
  /** Time spent waiting on the model (request to end of stream), summed. */
  duration_api_ms: number;
  denials: PermissionDenial[];
  /** The model's last stop reason, `null` when the run ended before one. */
  stop_reason: StopReason | null;
  /** completed | max_turns | hook_stopped | prompt_blocked | aborted | model_error | tool_error */
  terminal_reason: string;
  /** What went wrong, when `is_error`. */
  error?: string;
  /** The HTTP status of a failed model request. */
  api_error_status?: number;
  /** The API's own message and error type for that request (its JSON error body), when it sent one. */
  api_error?: { message: string; type?: string };
}

export type AgentEvent =
  | { type: "text_delta"; text: string }
  | { type: "thinking_delta"; text: string }
  /** A piece of a tool call's input JSON as the model streams it (Anthropic); the call starts at its `assistant_block`. */
  | { type: "tool_input_delta"; id: string; name: string; partialJson: string }
  /** One completed content block of the reply, as it finishes streaming. */
  | { type: "assistant_block"; block: AssistantContentBlock; messageId: string; /** The usage reported at the start of the message. */ usage: Usage }
  | { type: "assistant_message"; message: Extract<AgentMessage, { role: "assistant" }>; messageId: string; stopReason: StopReason; usage: Usage }
  | { type: "tool_progress"; toolUseId: string; data: unknown }
  | { type: "tool_result"; result: ToolResultBlock; toolName: string; outcome?: ToolCallOutcome }
  /** A round ended: the user message with its results (absent when the reply had no calls). */
  | { type: "turn_end"; turn: number; message?: Extract<AgentMessage, { role: "user" }>; stopReason: StopReason }
  /** Something for the user (hook messages, a retry of a paused turn). */
  | { type: "notice"; text: string }
  | { type: "result"; result: AgentResult };
