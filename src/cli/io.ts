/** The process edges the CLI talks to; tests pass their own. */
export interface CliIO {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  readStdin(): Promise<string>;
  isTTY: boolean;
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
