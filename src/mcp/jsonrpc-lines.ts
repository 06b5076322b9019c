// Newline-delimited JSON-RPC for the stdio transport, read without a schema library. The SDK's
// ReadBuffer runs every incoming line through its Zod union of the four message kinds, and the
// SDK's Protocol then checks the kind again with the same schemas; on a tools/call that first
// pass was a measurable part of the client's time per call. The checks here accept and refuse
// what that union does (JSON-RPC 2.0; request, notification, result or error; no other keys).
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

const NEWLINE = 0x0a;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isRequestId(value: unknown): boolean {
  return typeof value === "string" || (typeof value === "number" && Number.isInteger(value));
}

/** `_meta` of params and results: an object whose progressToken, when present, is a string or an integer. */
function metaProblem(holder: Record<string, unknown>): string | null {
  if (!("_meta" in holder) || holder._meta === undefined) return null;
  const meta = holder._meta;
  if (!isObject(meta)) return "_meta is not an object";
  if ("progressToken" in meta && meta.progressToken !== undefined && !isRequestId(meta.progressToken)) return "_meta.progressToken is neither a string nor an integer";
  return null;
}

function onlyKeys(message: Record<string, unknown>, allowed: readonly string[]): string | null {
  for (const key of Object.keys(message)) if (!allowed.includes(key)) return `unexpected key "${key}"`;
  return null;
}

/** Why `value` is not a JSON-RPC message MCP accepts, or null when it is one. */
export function jsonRpcProblem(value: unknown): string | null {
  if (!isObject(value)) return "not a JSON object";
  if (value.jsonrpc !== "2.0") return 'jsonrpc is not "2.0"';
  if ("method" in value) {
    if (typeof value.method !== "string") return "method is not a string";
    if ("params" in value && value.params !== undefined) {
      if (!isObject(value.params)) return "params is not an object";
      const meta = metaProblem(value.params);
      if (meta) return `params.${meta}`;
    }
    if ("id" in value) {
      if (!isRequestId(value.id)) return "id is neither a string nor an integer";
      return onlyKeys(value, ["jsonrpc", "id", "method", "params"]);
    }
    return onlyKeys(value, ["jsonrpc", "method", "params"]);
  }
  if ("result" in value) {
    if (!isRequestId(value.id)) return "id is neither a string nor an integer";
    if (!isObject(value.result)) return "result is not an object";
    const meta = metaProblem(value.result);
    if (meta) return `result.${meta}`;
    return onlyKeys(value, ["jsonrpc", "id", "result"]);
  }
  if ("error" in value) {
    if ("id" in value && value.id !== undefined && !isRequestId(value.id)) return "id is neither a string nor an integer";
    const error = value.error;
    if (!isObject(error)) return "error is not an object";
    if (typeof error.code !== "number" || !Number.isInteger(error.code)) return "error.code is not an integer";
    if (typeof error.message !== "string") return "error.message is not a string";
    return onlyKeys(value, ["jsonrpc", "id", "error"]);
  }
  return "neither a request, a notification, a result nor an error";
}

/** One line (without its newline) as a message; throws with the reason when it is not one. */
export function parseJsonRpcLine(line: string): JSONRPCMessage {
  const value: unknown = JSON.parse(line);
  const problem = jsonRpcProblem(value);
  if (problem !== null) throw new Error(problem);
  return value as JSONRPCMessage;
}

export interface LineHandlers {
  message: (message: JSONRPCMessage) => void;
  /** A line that is not a JSON-RPC message (given with the reason): reported, and the stream goes on. */
  badLine: (error: Error, line: string) => void;
  /**
   * A message grew past the limit: what was held is dropped. Without `resync` the stream cannot
   * be trusted after this; with it, the rest of that line is skipped and reading goes on.
   */
  tooLong: (error: Error) => void;
}

/**
 * Splits a byte stream into lines and each line into a message. A line may arrive in many
 * chunks; a multi-byte character split between chunks is joined before it is decoded.
 */
export class JsonRpcLineReader {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Inside a line that was too long: its bytes are dropped up to its newline. */
  private skipping = false;

  /**
   * `resync`: after a message past the limit, skip to the end of its line and go on (a server
   * answers such a message with an error and keeps serving); else the caller closes the stream.
   */
  constructor(
    private readonly maxMessageBytes: number,
    private readonly options: { resync?: boolean; what?: string } = {},
  ) {}

  push(chunk: Buffer, handlers: LineHandlers): void {
    let start = 0;
    if (this.skipping) {
      const end = chunk.indexOf(NEWLINE);
      if (end === -1) return;
      this.skipping = false;
      start = end + 1;
    }
    for (;;) {
      const end = chunk.indexOf(NEWLINE, start);
      if (end === -1) break;
      if (this.pendingBytes + (end - start) > this.maxMessageBytes) {
        // The whole line is here but too long: dropped, and the next line read as usual.
        this.clear();
        start = end + 1;
        handlers.tooLong(this.tooLongError());
        if (!this.options.resync) return;
        continue;
      }
      let line: string;
      if (this.pendingBytes > 0) {
        this.pending.push(chunk.subarray(start, end));
        line = Buffer.concat(this.pending).toString("utf8");
        this.clear();
      } else {
        line = chunk.toString("utf8", start, end);
      }
      start = end + 1;
      this.deliver(line, handlers);
    }
    if (start < chunk.length) {
      this.pendingBytes += chunk.length - start;
      if (this.pendingBytes > this.maxMessageBytes) {
        this.clear();
        if (this.options.resync) this.skipping = true;
        handlers.tooLong(this.tooLongError());
        return;
      }
      this.pending.push(start === 0 ? chunk : chunk.subarray(start));
    }
  }

  private tooLongError(): Error {
    return new Error(`a message from the ${this.options.what ?? "server"} exceeded ${this.maxMessageBytes} bytes`);
  }

  clear(): void {
    this.pending = [];
    this.pendingBytes = 0;
  }

  private deliver(raw: string, handlers: LineHandlers): void {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.trim() === "") return;
    let message: JSONRPCMessage;
    try {
      message = parseJsonRpcLine(line);
    } catch (err) {
      handlers.badLine(err as Error, line);
      return;
    }
    handlers.message(message);
  }
}
