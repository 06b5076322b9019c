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

/** Lines of a stream as each one completes (a last line without a newline included). */
export function streamLines(stream: NodeJS.ReadableStream): AsyncIterable<string> {
  return createInterface({ input: stream, crlfDelay: Infinity, terminal: false });
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
