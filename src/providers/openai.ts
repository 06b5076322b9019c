import { documentPlaceholder } from "../tools/read/read-pdf.js";
import { MalformedToolInput } from "../pipeline/prepare.js";
import type { ToolResultBlock, ToolUseBlock } from "../tool/types.js";

export interface OpenAIFunctionToolCall {
  id: string;
  type?: "function";
  function: { name: string; arguments: string };
}

/** A call of a custom (free-form input) tool: armature's tools take JSON, so it gets an is_error result. */
export interface OpenAICustomToolCall {
  id: string;
  type: "custom";
  custom: { name: string; input: string };
}

export type OpenAIToolCall = OpenAIFunctionToolCall | OpenAICustomToolCall;

/** An assistant message; the `openai` SDK's `ChatCompletionMessage` fits as is. */
export interface OpenAIAssistantMessage {
  role: "assistant";
  content?: string | null;
  tool_calls?: readonly OpenAIToolCall[] | null;
}

export interface OpenAIToolMessage {
  role: "tool";
  tool_call_id: string;
  content: string;
}

/**
 * Tool calls of an OpenAI assistant message as tool_use blocks. Each `arguments` string is
 * parsed; one that is not a JSON document becomes a MalformedToolInput, which the pipeline
 * turns into an is_error result for that call alone — never an exception.
 */
export function fromOpenAIToolCalls(message: OpenAIAssistantMessage): ToolUseBlock[] {
  return (message.tool_calls ?? []).map((call, index) => {
    const id = typeof call.id === "string" && call.id !== "" ? call.id : `call_${index}`;
    if (call.type === "custom") {
      const custom = (call as Partial<OpenAICustomToolCall>).custom;
      const name = typeof custom?.name === "string" && custom.name !== "" ? custom.name : `(custom tool call ${id} without a name)`;
      const raw = typeof custom?.input === "string" ? custom.input : JSON.stringify(custom?.input ?? null);
      return { type: "tool_use", id, name, input: new MalformedToolInput(raw, "custom tool call", "custom") };
    }
    const fn = (call as Partial<OpenAIFunctionToolCall>).function;
    const raw: unknown = fn?.arguments;
    let input: unknown;
    if (raw === undefined || (typeof raw === "string" && raw.trim() === "")) {
      input = {};
    } else if (typeof raw === "string") {
      try {
        input = JSON.parse(raw);
      } catch (err) {
        input = new MalformedToolInput(raw, err instanceof Error ? err.message : String(err));
      }
    } else if (typeof raw === "object" && raw !== null && !Array.isArray(raw)) {
      input = raw; // some servers send the arguments already parsed
    } else {
      input = new MalformedToolInput(JSON.stringify(raw), "arguments must be a JSON object encoded as a string");
    }
    const name = typeof fn?.name === "string" && fn.name !== "" ? fn.name : `(tool call ${id} without a function name)`;
    return { type: "tool_use", id, name, input };
  });
}

/**
 * Text of a tool_result for a channel that takes only text: images are described, not sent;
 * a ToolSearch load names the tools whose schemas the next request's `tools` now carries.
 */
export function toolResultText(block: ToolResultBlock): string {
  if (typeof block.content === "string") return block.content;
  return block.content
    .map((b) => {
      if (b.type === "text") return b.text;
      if (b.type === "tool_reference") return `Tool loaded: ${b.tool_name} (its schema is in your tool list now; call it directly)`;
      if (b.type === "document") return documentPlaceholder(b);
      return `[image: ${b.source.media_type}, ${Math.round((b.source.data.length * 3) / 4)} bytes]`;
    })
    .join("\n");
}

/** tool_result blocks as OpenAI `role: "tool"` messages, in the same order. */
export function toOpenAIToolMessages(results: readonly ToolResultBlock[]): OpenAIToolMessage[] {
  return results.map((block) => ({ role: "tool", tool_call_id: block.tool_use_id, content: toolResultText(block) }));
}
