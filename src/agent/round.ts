import { AsyncQueue } from "../orchestration/async-queue.js";
import { toolUseError } from "../pipeline/errors.js";
import { MalformedToolInput } from "../pipeline/prepare.js";
import type { ToolCallOutcome } from "../pipeline/run-tool-use.js";
import { emptyUsage, errorFields, type AssistantContentBlock, type ModelProvider, type ModelRequest, type StopReason, type Usage } from "../providers/model.js";
import { linkAbort } from "../tool/context.js";
import type { ToolResultBlock, ToolUseBlock } from "../tool/types.js";
import type { AgentEvent, AgentToolRunner } from "./types.js";

export interface RoundOutput {
  messageId: string;
  blocks: AssistantContentBlock[];
  toolUses: ToolUseBlock[];
  /** Results in tool_use order (one per tool use when the reply completed). */
  outcomes: ToolCallOutcome[];
  stopReason?: StopReason;
  usage: Usage;
  /** The model stream failed (or was aborted) before the reply was complete. */
  error?: { message: string; status?: number; timeout?: "headers" | "idle"; apiError?: { message: string; type?: string } };
  /** Whether any text, thinking or block came out before the end (a failed round that produced nothing may be retried). */
  produced: boolean;
  apiMs: number;
  /** The gate refused the reply's calls (they were answered as not run). */
  gated?: boolean;
}

/**
 * One round trip: streams the reply, hands each tool_use to the session's streaming executor
 * the moment its block is complete, and yields text, blocks, progress and results as they come.
 * A reply that does not complete discards the executor (running calls are aborted).
 */
export async function* runRound(
  tools: AgentToolRunner,
  provider: ModelProvider,
  request: Omit<ModelRequest, "signal">,
  signal: AbortSignal | undefined,
  /** With it, calls are held until the reply is complete, and refused when it says true (RunAgentOptions.overBudget). */
  gate?: (replyUsage: Usage) => boolean,
): AsyncGenerator<AgentEvent, RoundOutput> {
  const controller = new AbortController();
  const unlink = signal ? linkAbort(signal, controller) : () => {};
  const output: RoundOutput = { messageId: "", blocks: [], toolUses: [], outcomes: [], usage: emptyUsage(), produced: false, apiMs: 0 };
  const out = new AsyncQueue<AgentEvent>();
  const feed = new AsyncQueue<ToolUseBlock>();
  const malformed = new Map<string, string>();
  const held: ToolCallOutcome[] = [];
  /** Calls held for the gate, and those it refused. */
  const gated: ToolUseBlock[] = [];
  const refused: ToolUseBlock[] = [];
  let feedFailed = false;
  let startUsage: Usage = emptyUsage();
  let pending = 1;
  const finish = (): void => {
    if (--pending === 0) out.close();
  };

  // The tools' stream starts with the first tool_use: a reply of text alone costs no executor.
  let toolPump: Promise<void> | undefined;
  const startTools = (): Promise<void> => (async () => {
    try {
      for await (const event of tools.stream(feed, { signal: controller.signal })) {
        if (event.type === "progress") {
          out.push({ type: "tool_progress", toolUseId: event.toolUseId, data: event.data });
          continue;
        }
        output.outcomes.push(event.outcome);
        // A call with malformed arguments waits for the stop reason: truncated, or just bad JSON.
        if (malformed.has(event.result.tool_use_id)) held.push(event.outcome);
        else out.push(resultEvent(event.outcome));
      }
    } catch (err) {
      if (!feedFailed) output.error ??= errorFields(err);
    }
    finish();
  })();

  const started = performance.now();
  const modelPump = (async () => {
    try {
      for await (const event of provider.stream({ ...request, signal: controller.signal })) {
        switch (event.type) {
          case "message_start":
            output.messageId = event.id;
            startUsage = event.usage;
            break;
          case "text_delta":
          case "thinking_delta":
            output.produced = true;
            out.push(event);
            break;
          case "tool_input_delta":
            out.push(event);
            break;
          case "block": {
            const block = event.block;
            output.produced = true;
            output.blocks.push(block);
            out.push({ type: "assistant_block", block, messageId: output.messageId, usage: startUsage });
            if (block.type !== "tool_use") break;
            output.toolUses.push(block);
            if (event.malformed) malformed.set(block.id, block.name);
            if (!toolPump) {
              pending++;
              toolPump = startTools();
            }
            const fed = event.malformed ? { ...block, input: new MalformedToolInput(event.malformed.raw, event.malformed.problem) } : block;
            if (gate) gated.push(fed);
            else feed.push(fed);
            break;
          }
          case "message_end":
            output.stopReason = event.stopReason;
            output.usage = event.usage;
            break;
          case "error":
            output.error = {
              message: event.message,
              ...(event.status !== undefined ? { status: event.status } : {}),
              ...(event.timeout ? { timeout: event.timeout } : {}),
              ...(event.apiError ? { apiError: event.apiError } : {}),
            };
            break;
        }
      }
    } catch (err) {
      output.error = errorFields(err); // providers do not throw; a custom one might
    }
    if (!output.error && output.stopReason === undefined) output.error = { message: "the model stream ended without a stop reason" };
    if (output.error && controller.signal.aborted) output.error = { message: "aborted" };
    output.apiMs = performance.now() - started;
    if (output.error) {
      feedFailed = true;
      feed.fail(new Error("the model's reply did not complete"));
    } else if (gate && gated.length > 0 && gate(output.usage)) {
      output.gated = true;
      for (const block of gated) refused.push(block);
      feed.close();
    } else {
      for (const block of gated) feed.push(block);
      feed.close();
    }
    finish();
  })();

  try {
    for await (const event of out) yield event;
    await Promise.all([modelPump, toolPump]);
  } finally {
    // The consumer stopped early (or the round failed): stop the stream and every running call.
    if (pending > 0 || output.error) controller.abort(new Error("round ended"));
    unlink();
  }
  if (output.error) return output;
  for (const block of refused) {
    const outcome: ToolCallOutcome = {
      block: { type: "tool_result", tool_use_id: block.id, content: toolUseError(`${block.name} was not run: the session's cost passed its budget (--max-budget-usd).`), is_error: true },
      newMessages: [],
      isError: true,
      notices: [],
    };
    output.outcomes.push(outcome);
    yield resultEvent(outcome);
  }
  for (const outcome of held) {
    if (output.stopReason === "max_tokens") outcome.block = truncatedResult(outcome.block.tool_use_id, malformed.get(outcome.block.tool_use_id)!);
    yield resultEvent(outcome);
  }
  output.outcomes = inToolUseOrder(output.toolUses, output.outcomes);
  return output;
}

function resultEvent(outcome: ToolCallOutcome): AgentEvent {
  return { type: "tool_result", result: outcome.block, toolName: outcome.tool?.name ?? "", outcome };
}

function truncatedResult(toolUseId: string, name: string): ToolResultBlock {
  return {
    type: "tool_result",
    tool_use_id: toolUseId,
    content: toolUseError(
      `Your ${name} call was cut off at the output token limit (max_tokens) before its arguments were complete, so it was not run. ` +
        "Make the call again with shorter arguments, or split the work into smaller calls (for example, write a large file in parts).",
    ),
    is_error: true,
  };
}

/** One outcome per tool_use, in tool_use order; a call that has none (never expected) gets an error. */
function inToolUseOrder(toolUses: readonly ToolUseBlock[], outcomes: ToolCallOutcome[]): ToolCallOutcome[] {
  // The executor releases results in order: the usual case is already right, checked in one pass.
  if (outcomes.length === toolUses.length && outcomes.every((o, i) => o.block.tool_use_id === toolUses[i]!.id)) return outcomes;
  const byId = new Map<string, ToolCallOutcome[]>();
  for (const o of outcomes) {
    const list = byId.get(o.block.tool_use_id);
    if (list) list.push(o);
    else byId.set(o.block.tool_use_id, [o]);
  }
  return toolUses.map(
    (use) =>
      byId.get(use.id)?.shift() ?? {
        block: { type: "tool_result", tool_use_id: use.id, content: toolUseError(`${use.name} produced no result.`), is_error: true },
        newMessages: [],
        isError: true,
        notices: [],
      },
  );
}
