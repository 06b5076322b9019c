/**
 * Deadlines of one model request: until the response's headers arrive, and between two events
 * of its stream. A server that accepts the connection and says nothing, or starts a stream and
 * stalls, ends the request with an error naming the server, the phase and the setting, instead
 * of holding the agent forever.
 */

/** Default wait for a response's headers (connection included): one minute. */
export const DEFAULT_HEADERS_TIMEOUT_MS = 60_000;
/** Default wait between two stream events: 90 s (a long thinking pause still sends pings). */
export const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 90_000;

export type DeadlinePhase = "headers" | "idle";

export interface DeadlineSettings {
  headersTimeoutMs?: number;
  streamIdleTimeoutMs?: number;
}

/** The settings (and their environment variables) named in a timeout's message. */
const SETTING: Record<DeadlinePhase, { option: string; env: string }> = {
  headers: { option: "headersTimeoutMs", env: "ARMATURE_HEADERS_TIMEOUT_MS" },
  idle: { option: "streamIdleTimeoutMs", env: "ARMATURE_STREAM_IDLE_TIMEOUT_MS" },
};

export class StreamTimeoutError extends Error {
  constructor(
    readonly server: string,
    readonly phase: DeadlinePhase,
    readonly ms: number,
  ) {
    const what =
      phase === "headers" ? `sent no response headers within ${ms} ms of the request` : `sent nothing for ${ms} ms in the middle of its stream`;
    const setting = SETTING[phase];
    super(`the model server ${server} ${what} (phase: ${phase}; raise ${setting.env} or the provider's ${setting.option} to wait longer)`);
    this.name = "StreamTimeoutError";
  }
}

/**
 * Ties a request to its deadline: the request carries it as a header, which the fetch below
 * removes before the request leaves (the SDKs take one fetch per client, not per request).
 */
const DEADLINE_HEADER = "x-armature-stream-deadline";
const liveDeadlines = new Map<string, StreamDeadline>();
let nextDeadlineId = 0;

/**
 * The SDK clients' fetch: every chunk of a response body counts as activity for the deadline of
 * its request. The SDKs swallow keep-alive pings (Anthropic's `ping` events, SSE comments of
 * OpenAI-compatible servers), so events alone would make a live stream that only pings during a
 * long pause look silent.
 */
export function activityCountingFetch(base?: typeof fetch): typeof fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    const id = headers.get(DEADLINE_HEADER);
    const send = base ?? fetch;
    if (id === null) return send(input, init);
    headers.delete(DEADLINE_HEADER);
    const response = await send(input, { ...init, headers });
    const deadline = liveDeadlines.get(id);
    if (deadline === undefined || response.body === null) return response;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          deadline.bytesArrived();
          controller.enqueue(chunk);
        },
      }),
    );
    const wrapped = new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers });
    Object.defineProperty(wrapped, "url", { value: response.url });
    return wrapped;
  };
}

/**
 * One request's deadlines: `signal` goes to the SDK call (aborted by the caller's signal or a
 * deadline); `response` waits for the headers; `events` passes the stream through, restarting
 * the idle timer at each event, and at each chunk of bytes when the request went through
 * activityCountingFetch with `headers`. After a deadline, `timedOut` is the error to report.
 */
export class StreamDeadline {
  readonly signal: AbortSignal;
  /** Headers for the request (through activityCountingFetch): they let its bytes count as activity. */
  readonly headers: Record<string, string>;
  timedOut: StreamTimeoutError | undefined;
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private phase: DeadlinePhase | undefined;
  private readonly id = String(nextDeadlineId++);
  private readonly headersMs: number;
  private readonly idleMs: number;
  private readonly unlink: () => void;

  constructor(
    private readonly server: string,
    settings: DeadlineSettings,
    outer: AbortSignal | undefined,
  ) {
    this.headersMs = positive(settings.headersTimeoutMs, DEFAULT_HEADERS_TIMEOUT_MS);
    this.idleMs = positive(settings.streamIdleTimeoutMs, DEFAULT_STREAM_IDLE_TIMEOUT_MS);
    this.signal = this.controller.signal;
    this.headers = { [DEADLINE_HEADER]: this.id };
    liveDeadlines.set(this.id, this);
    if (outer?.aborted) this.controller.abort(outer.reason);
    const onAbort = (): void => this.controller.abort(outer?.reason);
    outer?.addEventListener("abort", onAbort, { once: true });
    this.unlink = () => outer?.removeEventListener("abort", onAbort);
  }

  /** Waits for the SDK's response (headers received, stream not read yet) under the headers deadline. */
  async response<T>(pending: Promise<T>): Promise<T> {
    this.arm("headers", this.headersMs);
    try {
      return await pending;
    } finally {
      this.disarm();
    }
  }

  /** The stream's events; each one restarts the idle deadline. */
  async *events<T>(stream: AsyncIterable<T>): AsyncGenerator<T> {
    const it = stream[Symbol.asyncIterator]();
    try {
      for (;;) {
        this.arm("idle", this.idleMs);
        const next = await it.next();
        this.disarm();
        if (next.done) return;
        yield next.value;
      }
    } finally {
      this.disarm();
      await it.return?.();
    }
  }

  /** The error to report for a failure: the deadline's when one fired, else the failure itself. */
  failure(err: unknown): unknown {
    return this.timedOut ?? err;
  }

  /** Bytes of the response arrived: while the stream is awaited, its idle deadline starts again. */
  bytesArrived(): void {
    if (this.phase === "idle" && this.timer !== undefined) this.timer.refresh();
  }

  close(): void {
    this.disarm();
    this.unlink();
    liveDeadlines.delete(this.id);
  }

  private arm(phase: DeadlinePhase, ms: number): void {
    this.disarm();
    this.phase = phase;
    this.timer = setTimeout(() => {
      this.timedOut = new StreamTimeoutError(this.server, phase, ms);
      this.controller.abort(this.timedOut);
    }, ms);
  }

  private disarm(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.phase = undefined;
  }
}

function positive(value: number | undefined, fallback: number): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : fallback;
}

/** How a server is named in messages: its origin (no path, no credentials). */
export function serverName(baseURL: string | undefined, fallback: string): string {
  if (!baseURL) return fallback;
  try {
    const url = new URL(baseURL);
    return `${url.protocol}//${url.host}`;
  } catch {
    return baseURL;
  }
}

/**
 * A failed request as an `error` event's fields: a deadline names its phase; a failure without
 * an HTTP status (a broken or malformed stream, a refused connection) names the server.
 */
/** The API's own words for a failed request: `error.message` and `error.type` of its JSON body. */
export interface ApiErrorBody {
  message: string;
  type?: string;
}

/** Anthropic's body is `{type: "error", error: {type, message}}`; the OpenAI SDK's `error` is already the inner object. */
function apiErrorBody(body: unknown): ApiErrorBody | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const outer = body as { error?: unknown; message?: unknown; type?: unknown };
  const inner = (typeof outer.error === "object" && outer.error !== null ? outer.error : outer) as { message?: unknown; type?: unknown };
  if (typeof inner.message !== "string" || inner.message === "") return undefined;
  return { message: inner.message, ...(typeof inner.type === "string" ? { type: inner.type } : {}) };
}

export function streamErrorFields(err: unknown, server: string): { message: string; status?: number; timeout?: DeadlinePhase; apiError?: ApiErrorBody } {
  if (err instanceof StreamTimeoutError) return { message: err.message, timeout: err.phase };
  const status = (err as { status?: unknown } | null)?.status;
  const message = err instanceof Error ? err.message : String(err);
  if (typeof status === "number") {
    const apiError = apiErrorBody((err as { error?: unknown }).error);
    return { message, status, ...(apiError ? { apiError } : {}) };
  }
  return { message: `the model server ${server}: ${message}` };
}
