import type { Readable, Writable } from "node:stream";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { JsonRpcLineReader, type LineHandlers } from "./jsonrpc-lines.js";

/** The largest message `armature mcp serve` reads over stdio unless told otherwise (64 MiB). */
export const DEFAULT_MAX_STDIO_MESSAGE_BYTES = 64 * 1024 * 1024;

/** JSON-RPC 2.0 error codes. */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

/**
 * The id a client gave a line that is not a valid message, when it gave one: the error reply
 * then reaches the request that waits for it (JSON-RPC: null when it cannot be told).
 */
function idOf(line: string): string | number | null {
  try {
    const value: unknown = JSON.parse(line);
    if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
    const id = (value as { id?: unknown }).id;
    return typeof id === "string" || (typeof id === "number" && Number.isInteger(id)) ? id : null;
  } catch {
    return null;
  }
}

/**
 * MCP over stdio for a server that must keep serving whatever a client sends. The SDK's stdio
 * transport closes itself on a message over 10 MiB and answers nothing to a line that is not a
 * message; here a line that is not JSON gets a JSON-RPC parse error, a line that is JSON but not
 * a valid message gets an invalid-request error (with its id when it has one), a message over
 * the limit gets an invalid-request error naming the limit, and reading goes on.
 */
export class LineStdioServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly reader: JsonRpcLineReader;
  private readonly handlers: LineHandlers;
  private started = false;
  private closed = false;
  /** Lines answered with an error (for the verbose log and tests). */
  rejected = 0;

  constructor(
    private readonly stdin: Readable,
    private readonly stdout: Writable,
    maxMessageBytes = DEFAULT_MAX_STDIO_MESSAGE_BYTES,
  ) {
    this.reader = new JsonRpcLineReader(maxMessageBytes, { resync: true, what: "client" });
    this.handlers = {
      message: (message) => this.onmessage?.(message),
      badLine: (err, line) => {
        let parses = true;
        try {
          JSON.parse(line);
        } catch {
          parses = false;
        }
        this.reject(
          parses ? INVALID_REQUEST : PARSE_ERROR,
          parses ? `Invalid Request: ${err.message}` : `Parse error: the line is not JSON (${err.message})`,
          parses ? idOf(line) : null,
        );
      },
      tooLong: (err) =>
        this.reject(INVALID_REQUEST, `Invalid Request: ${err.message} (the limit of this server); the message was dropped, send smaller ones`, null),
    };
  }

  private readonly onData = (chunk: Buffer | string): void => {
    this.reader.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk, this.handlers);
  };

  private readonly onStreamError = (err: Error): void => this.onerror?.(err);

  private readonly onEnd = (): void => void this.close();

  private reject(code: number, message: string, id: string | number | null): void {
    this.rejected++;
    this.onerror?.(new Error(message));
    this.write({ jsonrpc: "2.0", id, error: { code, message } });
  }

  async start(): Promise<void> {
    if (this.started) throw new Error("LineStdioServerTransport already started");
    this.started = true;
    this.stdin.on("data", this.onData);
    this.stdin.on("error", this.onStreamError);
    this.stdin.once("end", this.onEnd);
    this.stdin.once("close", this.onEnd);
  }

  private write(value: unknown): Promise<void> {
    return new Promise((resolve) => {
      if (this.closed || this.stdout.destroyed) return resolve();
      if (this.stdout.write(`${JSON.stringify(value)}\n`)) resolve();
      else this.stdout.once("drain", resolve);
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.write(message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off("data", this.onData);
    this.stdin.off("error", this.onStreamError);
    this.stdin.off("end", this.onEnd);
    this.stdin.off("close", this.onEnd);
    // Nothing reads stdin any more: it must not keep the process alive.
    this.stdin.pause();
    (this.stdin as Readable & { unref?: () => void }).unref?.();
    this.reader.clear();
    this.onclose?.();
  }
}
