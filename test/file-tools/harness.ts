import { createSession, type Session, type SessionOptions } from "../../src/session/session.js";
import type { Tool, ToolResultBlock } from "../../src/tool/types.js";
import { toolUse } from "../helpers.js";

/** A session in `dir` with the given tools, permissions out of the way (the engine is tested elsewhere). */
export function fileSession(dir: string, tools: Tool[], extra: Partial<SessionOptions> = {}): Session {
  return createSession({ cwd: dir, tools, permissionMode: "bypassPermissions", ...extra });
}

/** One call through the whole pipeline; its tool_result block. */
export async function call(session: Session, name: string, input: Record<string, unknown>): Promise<ToolResultBlock> {
  const [block] = await session.runTurn([toolUse(name, input)]);
  return block!;
}

/** The text of a result that is a plain string (fails the test otherwise). */
export function text(block: ToolResultBlock): string {
  if (typeof block.content !== "string") throw new Error(`expected string content, got ${JSON.stringify(block.content).slice(0, 200)}`);
  return block.content;
}

/** A refusal before anything changed (a failed check), wrapped as the reference wraps it. */
export function errorText(message: string): string {
  return `<tool_use_error>${message}</tool_use_error>`;
}

/** A failure while the tool ran: the bare message, as the reference sends it. */
export function failureText(message: string): string {
  return message;
}
