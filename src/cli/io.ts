import { createInterface } from "node:readline";

/** The process edges the CLI talks to; tests pass their own. */
export interface CliIO {
  stdout: { write(text: string): unknown; once?(event: "drain", listener: () => void): unknown };
  stderr: { write(text: string): unknown };
  readStdin(): Promise<string>;
  /** stdin line by line as lines complete (default: `readStdin()` split into lines). */
  stdinLines?(): AsyncIterable<string>;
  /** stdin is a terminal (nobody may be typing: `exec` says it waits for input). */
  stdinIsTTY?: boolean;
  isTTY: boolean;
  /** The real process: `exec` installs SIGTERM/SIGINT/SIGHUP handlers that stop what the session started. */
  handleSignals?: boolean;
  /** Reads one answer line from the terminal (interactive approvals). */
  question?(prompt: string): Promise<string>;
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

/**
 * One reader of a stream's lines for two consumers: the turns `exec` reads, and the answers to
 * approval questions asked on the same terminal while a turn runs. A line typed while a question
 * waits answers it; every other line is a turn.
 */
export class LineReader {
  private readonly queued: string[] = [];
  private readonly waiters: Array<(line: string | undefined) => void> = [];
  private answer: ((line: string) => void) | undefined;
  private ended = false;

  constructor(stream: NodeJS.ReadableStream) {
    const rl = createInterface({ input: stream, crlfDelay: Infinity, terminal: false });
    rl.on("line", (line) => {
      const answer = this.answer;
      if (answer) {
        this.answer = undefined;
        answer(line);
        return;
      }
      const waiter = this.waiters.shift();
      if (waiter) waiter(line);
      else this.queued.push(line);
    });
    rl.on("close", () => {
      this.ended = true;
      this.answer?.("");
      this.answer = undefined;
      for (const waiter of this.waiters.splice(0)) waiter(undefined);
    });
  }

  async *lines(): AsyncGenerator<string> {
    for (;;) {
      if (this.queued.length > 0) {
        yield this.queued.shift()!;
        continue;
      }
      if (this.ended) return;
      const line = await new Promise<string | undefined>((resolve) => this.waiters.push(resolve));
      if (line === undefined) return;
      yield line;
    }
  }

  /** Writes the prompt and resolves to the next line ("" once the input has ended). */
  question(prompt: string, out: { write(text: string): unknown }): Promise<string> {
    out.write(prompt);
    if (this.ended) return Promise.resolve("");
    return new Promise((resolve) => (this.answer = resolve));
  }
}

/** The lines of `io`'s stdin, live when the IO can give them so. */
export function stdinLines(io: CliIO): AsyncIterable<string> {
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
