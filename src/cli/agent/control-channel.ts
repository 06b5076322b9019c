import { randomUUID } from "node:crypto";
import { OversizedLine } from "../io.js";

/** One JSON object a line, as the Agent SDK writes them on the CLI's stdin. */
export type StdinMessage = Record<string, unknown> & { type?: unknown };

export interface ControlRequestEnvelope {
  type: "control_request";
  request_id: string;
  request: Record<string, unknown> & { subtype: string };
}

/** Answers one control request the host sent: the success payload, or throws for an error response. */
export type ControlHandler = (request: ControlRequestEnvelope["request"]) => Promise<Record<string, unknown> | undefined>;

export class ControlChannelClosed extends Error {
  constructor(what: string) {
    super(`the SDK host closed the input before answering ${what}`);
    this.name = "ControlChannelClosed";
  }
}

/**
 * The CLI's side of the SDK's control protocol over stdin/stdout (stream-json). Reads lines as
 * they come: control requests from the host go to the handler and get exactly one
 * control_response; control responses settle the requests we sent; user messages are queued
 * for the loop; anything else is reported and skipped (bad input never ends the run).
 */
export class ControlChannel {
  private readonly pending = new Map<string, { resolve: (value: Record<string, unknown>) => void; reject: (err: Error) => void; what: string }>();
  private readonly queued: StdinMessage[] = [];
  private readonly waiters: Array<(message: StdinMessage | undefined) => void> = [];
  private ended = false;
  private handler: ControlHandler | undefined;
  /** Requests that arrived before a handler was set (the loop installs it once the session exists). */
  private readonly early: ControlRequestEnvelope[] = [];
  private initWaiter: ((envelope: ControlRequestEnvelope | undefined) => void) | undefined;
  private initSeen = false;

  constructor(
    private readonly write: (line: string) => void,
    private readonly warn: (text: string) => void,
  ) {}

  /** Feeds the channel from the input's lines; resolves when the input ends. */
  async pump(lines: AsyncIterable<string | OversizedLine>): Promise<void> {
    try {
      for await (const line of lines) {
        if (line instanceof OversizedLine) this.warn(`an input line of ${line.bytes} bytes is over the ${line.limit}-byte limit (ARMATURE_EXEC_MAX_LINE_BYTES): dropped`);
        else this.accept(line);
      }
    } finally {
      this.ended = true;
      this.resolveInit(undefined);
      for (const waiter of this.waiters.splice(0)) waiter(undefined);
      for (const [id, p] of this.pending) {
        this.pending.delete(id);
        p.reject(new ControlChannelClosed(p.what));
      }
    }
  }

  get inputEnded(): boolean {
    return this.ended;
  }

  /**
   * The host's `initialize` request, when it sends one before its first user message (the SDK
   * always does); undefined when a user message comes first or the input ends. The caller
   * answers it with `respond`.
   */
  initialize(): Promise<ControlRequestEnvelope | undefined> {
    if (this.initSeen || this.queued.length > 0 || this.ended) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.initWaiter = resolve;
    });
  }

  respond(envelope: ControlRequestEnvelope, payload: Record<string, unknown>): void {
    this.send({ type: "control_response", response: { subtype: "success", request_id: envelope.request_id, response: payload } });
  }

  private resolveInit(envelope: ControlRequestEnvelope | undefined): void {
    this.initSeen = true;
    const waiter = this.initWaiter;
    this.initWaiter = undefined;
    waiter?.(envelope);
  }

  setHandler(handler: ControlHandler): void {
    this.handler = handler;
    for (const request of this.early.splice(0)) void this.answer(request);
  }

  /** The next message that is not a control message (a user message), or undefined once the input ended. */
  next(): Promise<StdinMessage | undefined> {
    const message = this.queued.shift();
    if (message !== undefined) return Promise.resolve(message);
    if (this.ended) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** A message already waiting (no wait). */
  takeQueued(): StdinMessage | undefined {
    return this.queued.shift();
  }

  /** Sends a control request to the host and resolves to its success payload (rejects on an error response). */
  request(request: Record<string, unknown> & { subtype: string }, signal?: AbortSignal): Promise<Record<string, unknown>> {
    if (this.ended) return Promise.reject(new ControlChannelClosed(request.subtype));
    const requestId = randomUUID();
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        if (!this.pending.delete(requestId)) return;
        this.send({ type: "control_cancel_request", request_id: requestId });
        reject(signal?.reason instanceof Error ? signal.reason : new Error("aborted"));
      };
      this.pending.set(requestId, {
        resolve: (value) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(value);
        },
        reject: (err) => {
          signal?.removeEventListener("abort", onAbort);
          reject(err);
        },
        what: request.subtype,
      });
      signal?.addEventListener("abort", onAbort, { once: true });
      this.send({ type: "control_request", request_id: requestId, request });
    });
  }

  send(value: unknown): void {
    this.write(`${JSON.stringify(value)}\n`);
  }

  private accept(line: string): void {
    if (line.trim() === "") return;
    let message: StdinMessage;
    try {
      const parsed: unknown = JSON.parse(line);
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("not a JSON object");
      message = parsed as StdinMessage;
    } catch (err) {
      this.warn(`stdin: a line that is not a JSON object was skipped (${(err as Error).message}): ${line.slice(0, 200)}`);
      return;
    }
    if (message.type === "control_response") return this.settle(message);
    if (message.type === "control_request") {
      const envelope = message as unknown as ControlRequestEnvelope;
      if (typeof envelope.request_id !== "string" || typeof envelope.request?.subtype !== "string") {
        this.warn("stdin: a control_request without request_id or request.subtype was skipped");
        return;
      }
      if (!this.initSeen && envelope.request.subtype === "initialize") return this.resolveInit(envelope);
      if (this.handler) void this.answer(envelope);
      else this.early.push(envelope);
      return;
    }
    if (message.type === "control_cancel_request" || message.type === "keep_alive" || message.type === "update_environment_variables") return;
    if (!this.initSeen) this.resolveInit(undefined);
    const waiter = this.waiters.shift();
    if (waiter) waiter(message);
    else this.queued.push(message);
  }

  private settle(message: StdinMessage): void {
    const response = message.response as { subtype?: string; request_id?: string; response?: Record<string, unknown>; error?: string } | undefined;
    const id = response?.request_id;
    if (typeof id !== "string") return;
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    if (response!.subtype === "success") p.resolve(response!.response ?? {});
    else p.reject(new Error(response!.error ?? `the SDK host answered ${p.what} with an error`));
  }

  private async answer(envelope: ControlRequestEnvelope): Promise<void> {
    try {
      const response = await this.handler!(envelope.request);
      this.send({ type: "control_response", response: { subtype: "success", request_id: envelope.request_id, response: response ?? {} } });
    } catch (err) {
      this.send({ type: "control_response", response: { subtype: "error", request_id: envelope.request_id, error: err instanceof Error ? err.message : String(err) } });
    }
  }
}
