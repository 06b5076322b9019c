// `armature exec` as a live child process: write a line, read the line it answers with.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createInterface } from "node:readline";

export interface ExecProcess {
  child: ChildProcessWithoutNullStreams;
  /** Writes one line (a JSON value is stringified) and resolves to the next stdout line, parsed. */
  turn(line: unknown): Promise<unknown>;
  /** Writes without waiting for an answer. */
  write(line: unknown): void;
  /** The next stdout line, parsed. */
  next(): Promise<unknown>;
  /** Ends stdin; resolves to the exit code (or 128+signal) with what stderr said. */
  end(): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

export function startExec(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): ExecProcess {
  const child = spawn(process.execPath, ["bin/armature.js", "exec", ...args], {
    cwd: options.cwd ?? process.cwd(),
    env: options.env ?? process.env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (d: string) => (stderr += d));
  const lines: string[] = [];
  const waiters: Array<(line: string | undefined) => void> = [];
  let closed = false;
  const rl = createInterface({ input: child.stdout, crlfDelay: Infinity });
  rl.on("line", (line) => {
    const waiter = waiters.shift();
    if (waiter) waiter(line);
    else lines.push(line);
  });
  rl.on("close", () => {
    closed = true;
    for (const w of waiters.splice(0)) w(undefined);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) => {
    child.once("close", (code, signal) => resolve({ code, signal, stderr }));
  });
  const next = (): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const take = (line: string | undefined): void => {
        if (line === undefined) reject(new Error(`exec ended before answering; stderr: ${stderr}`));
        else resolve(JSON.parse(line));
      };
      if (lines.length > 0) take(lines.shift());
      else if (closed) take(undefined);
      else waiters.push(take);
    });
  const write = (line: unknown): void => {
    child.stdin.write(`${typeof line === "string" ? line : JSON.stringify(line)}\n`);
  };
  return {
    child,
    write,
    next,
    turn: (line) => {
      write(line);
      return next();
    },
    end: () => {
      child.stdin.end();
      return exited;
    },
    exited,
  };
}
