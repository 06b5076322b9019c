import type { ToolUseBlock } from "../tool/types.js";
import { fromOpenAIToolCalls, type OpenAIAssistantMessage } from "./openai.js";

export type TurnShape = "anthropic" | "openai";

export interface ParsedTurn {
  shape: TurnShape;
  blocks: ToolUseBlock[];
}

export class TurnParseError extends Error {
  constructor(
    message: string,
    readonly line?: number,
  ) {
    super(line === undefined ? message : `line ${line}: ${message}`);
    this.name = "TurnParseError";
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function toolUsesOf(content: unknown[], where: string): ToolUseBlock[] {
  const blocks: ToolUseBlock[] = [];
  for (const item of content) {
    if (!isRecord(item)) throw new TurnParseError(`${where}: every element must be an object`);
    if (item.type !== "tool_use") continue; // text and thinking blocks carry no calls
    if (typeof item.id !== "string" || typeof item.name !== "string") {
      throw new TurnParseError(`${where}: a tool_use block needs a string "id" and "name"`);
    }
    blocks.push({ type: "tool_use", id: item.id, name: item.name, input: item.input });
  }
  return blocks;
}

/**
 * One assistant turn: an array of tool_use blocks, an Anthropic assistant message (or API
 * response) with `content`, or an OpenAI assistant message with `tool_calls`.
 */
export function parseTurn(value: unknown): ParsedTurn {
  if (Array.isArray(value)) return { shape: "anthropic", blocks: toolUsesOf(value, "array of tool_use blocks") };
  if (isRecord(value)) {
    if (Array.isArray(value.tool_calls)) return { shape: "openai", blocks: fromOpenAIToolCalls(value as unknown as OpenAIAssistantMessage) };
    if (Array.isArray(value.content)) return { shape: "anthropic", blocks: toolUsesOf(value.content, "message content") };
    if (value.type === "tool_use") return { shape: "anthropic", blocks: toolUsesOf([value], "tool_use block") };
    // A reply with text only (either provider) is a turn without calls.
    if (value.role === "assistant" && (typeof value.content === "string" || value.content === null)) return { shape: "anthropic", blocks: [] };
  }
  throw new TurnParseError("expected an array of tool_use blocks, an assistant message with content, or one with tool_calls");
}

/**
 * A turns file: a whole JSON document is one turn; otherwise JSON Lines, one turn a line
 * (blank lines skipped). Every line is parsed before anything runs: a bad line is an error
 * naming its number, and nothing is half-done.
 */
export function parseTurnsFile(text: string): ParsedTurn[] {
  const trimmed = text.trim();
  if (trimmed === "") return [];
  try {
    return [parseTurn(JSON.parse(trimmed))];
  } catch (err) {
    if (err instanceof TurnParseError && !trimmed.includes("\n")) throw new TurnParseError(err.message, 1);
    if (err instanceof TurnParseError) throw err;
  }
  const turns: ParsedTurn[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      throw new TurnParseError(`not JSON (${err instanceof Error ? err.message : String(err)})`, i + 1);
    }
    try {
      turns.push(parseTurn(value));
    } catch (err) {
      throw new TurnParseError(err instanceof Error ? err.message : String(err), i + 1);
    }
  }
  return turns;
}
