
/** The process edges the CLI talks to; tests pass their own. */
export interface CliIO {
  stdout: { write(text: string): unknown; once?(event: "drain", listener: () => void): unknown };
  stderr: { write(text: string): unknown };
  readStdin(): Promise<string>;
  /** stdin line by line as lines complete (default: `readStdin()` split into lines). */
  stdinLines?(): AsyncIterable<string | OversizedLine>;
  /** stdin is a terminal (nobody may be typing: `exec` says it waits for input). */
  stdinIsTTY?: boolean;
  isTTY: boolean;
  /** The real process: `exec` installs SIGTERM/SIGINT/SIGHUP handlers that stop what the session started. */
  handleSignals?: boolean;
  /**
   * Reads one answer line from the terminal (interactive approvals). When `signal` aborts (the
   * turn that asked was interrupted) the question is abandoned: it resolves to "" and the next
   * line goes to whatever reads next, not to it.
   */
  question?(prompt: string, signal?: AbortSignal): Promise<string>;
}

/** Bad arguments or input: the message names the flag, file or line. Exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString("utf8");
}

/** A line longer than the reader's limit: its bytes were dropped as they came, only its size is kept. */
export class OversizedLine {
  constructor(
    readonly bytes: number,
    readonly limit: number,
  ) {}
}

const DEFAULT_MAX_LINE_BYTES = 256 * 1024 * 1024;

/** The line limit of `exec`'s stdin: ARMATURE_EXEC_MAX_LINE_BYTES, or 256 MiB. */
export function maxLineBytes(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.ARMATURE_EXEC_MAX_LINE_BYTES);
  return Number.isInteger(n) && n > 0 ? n : DEFAULT_MAX_LINE_BYTES;
}

/**
 * Splits a byte stream into lines (LF or CRLF) holding at most `limit` bytes of a line: the
 * rest of a longer line is dropped as it arrives and the line is reported as an OversizedLine,
 * so one huge line costs bounded memory and never reaches a string length V8 refuses.
 */
export function boundedLines(stream: NodeJS.ReadableStream, limit: number, onLine: (line: string | OversizedLine) => void, onEnd: () => void): void {
  let parts: Buffer[] = [];
  let held = 0;
  let seen = 0;
  const emit = (): void => {
    if (seen > limit) onLine(new OversizedLine(seen, limit));
    else {
      let line = Buffer.concat(parts, held).toString("utf8");
      if (line.endsWith("\r")) line = line.slice(0, -1);
      onLine(line);
    }
    parts = [];
    held = 0;
    seen = 0;
  };
  const take = (chunk: Buffer): void => {
    seen += chunk.length;
    if (seen <= limit) {
      parts.push(chunk);
      held += chunk.length;
    } else if (parts.length > 0) {
      parts = [];
      held = 0;
    }
  };
  stream.on("data", (data: Buffer | string) => {
    const chunk = typeof data === "string" ? Buffer.from(data) : data;
    let from = 0;
    for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, from)) {
      take(chunk.subarray(from, nl));
      emit();
      from = nl + 1;
    }
    if (from < chunk.length) take(Buffer.from(chunk.subarray(from)));
  });
  let ended = false;
  const end = (): void => {
    if (ended) return;
    ended = true;
    if (seen > 0) emit();
    onEnd();
  };
  stream.on("end", end);
  stream.on("close", end);
  stream.on("error", end);
}

/**
 * One reader of a stream's lines for two consumers: the turns `exec` reads, and the answers to
 * approval questions asked on the same terminal while a turn runs. A line typed while a question
 * waits answers it; every other line is a turn. Lines are bounded (see boundedLines).
 */
export class LineReader {
  private readonly queued: Array<string | OversizedLine> = [];
  private readonly waiters: Array<(line: string | OversizedLine | undefined) => void> = [];
  private answer: ((line: string) => void) | undefined;
  private ended = false;

  constructor(stream: NodeJS.ReadableStream, limit = maxLineBytes()) {
    boundedLines(
      stream,
      limit,
      (line) => {
        const answer = this.answer;
        if (answer) {
          this.answer = undefined;
          answer(typeof line === "string" ? line : "");
          return;
        }
        const waiter = this.waiters.shift();
        if (waiter) waiter(line);
        else this.queued.push(line);
      },
      () => {
        this.ended = true;
        this.answer?.("");
        this.answer = undefined;
        for (const waiter of this.waiters.splice(0)) waiter(undefined);
      },
    );
  }

  async *lines(): AsyncGenerator<string | OversizedLine> {
    for (;;) {
      if (this.queued.length > 0) {
        yield this.queued.shift()!;
        continue;
      }
      if (this.ended) return;
      const line = await new Promise<string | OversizedLine | undefined>((resolve) => this.waiters.push(resolve));
      if (line === undefined) return;
      yield line;
    }
  }

  /** Writes the prompt and resolves to the next line ("" once the input has ended, or `signal` aborts: that line is then a turn). */
  question(prompt: string, out: { write(text: string): unknown }, signal?: AbortSignal): Promise<string> {
    if (signal?.aborted) return Promise.resolve("");
    out.write(prompt);
    if (this.ended) return Promise.resolve("");
    return new Promise((resolve) => {
      const answer = (line: string): void => {
        signal?.removeEventListener("abort", abandon);
        resolve(line);
      };
      const abandon = (): void => {
        if (this.answer === answer) this.answer = undefined;
        resolve("");
      };
      signal?.addEventListener("abort", abandon, { once: true });
      this.answer = answer;
    });
  }
}

/** The lines of `io`'s stdin, live when the IO can give them so. */
export function stdinLines(io: CliIO): AsyncIterable<string | OversizedLine> {
  if (io.stdinLines) return io.stdinLines();
  return (async function* () {
    const text = await io.readStdin();
    const lines = text.split("\n");
    if (lines.at(-1) === "") lines.pop();
    yield* lines;
  })();
}

/** Writes to stdout; resolves once the stream has taken it (waits for `drain` when it pushes back). */
export function writeOut(io: CliIO, text: string): Promise<void> {
  const accepted = io.stdout.write(text);
  if (accepted !== false || !io.stdout.once) return Promise.resolve();
  return new Promise((resolve) => io.stdout.once!("drain", resolve));
}

/** A flag's value as a whole number ≥ 1 (undefined when the flag is absent); anything else is a usage error naming the flag. */
export function positiveInt(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${flag} must be a whole number ≥ 1; got ${JSON.stringify(value)}`);
  return n;
}
