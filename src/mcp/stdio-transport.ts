import { CALL_MARK_VARIABLE, ensureWatchdog, newCallMark } from "../sandbox/call-mark.js";
import type { ContainedCommand } from "../sandbox/project-code.js";
import { spawn, type ChildProcess } from "node:child_process";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { JsonRpcLineReader, type LineHandlers } from "./jsonrpc-lines.js";
import { stopProcessGroup } from "../tools/bash/process-group.js";

export interface StdioServerOptions {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  /** Largest single message accepted (bytes, default 64 MB). */
  maxMessageBytes?: number;
  /** Started inside the sandbox (a project's server): its filter goes to fd 3, its cleanup runs when it exits. */
  contained?: Pick<ContainedCommand, "fd3" | "done">;
}

/** Process groups of servers still running: killed if this process exits without closing them. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const pgid of liveGroups) {
      try {
        process.kill(-pgid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  });
}

const STDERR_TAIL = 4_000;

/**
 * An MCP stdio client transport whose server runs as the leader of its own process group, so
 * that closing it stops everything the server started (the SDK's transport kills only the
 * leader). The server's stderr is kept (its tail) for error reports, not printed.
 */
export class ProcessGroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child: ChildProcess | undefined;
  private readonly reader: JsonRpcLineReader;
  private readonly handlers: LineHandlers = {
    message: (message) => this.onmessage?.(message),
    // A line that is not a JSON-RPC message (a server printing to stdout): reported, skipped.
    badLine: (err) => this.onerror?.(new Error(`the server wrote a line that is not a JSON-RPC message (${err.message})`)),
    tooLong: (err) => {
      this.onerror?.(err);
      void this.close();
    },
  };
  private stderrTail = "";
  private closed = false;
  exitCode: number | null = null;
  exitSignal: NodeJS.Signals | null = null;

  constructor(private readonly options: StdioServerOptions) {
    this.reader = new JsonRpcLineReader(options.maxMessageBytes ?? 64 * 1024 * 1024);
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The last few KB the server wrote to stderr. */
  get stderr(): string {
    return this.stderrTail;
  }

  start(): Promise<void> {
    if (this.child) throw new Error("ProcessGroupStdioTransport already started");
    installExitHook();
    return new Promise((resolve, reject) => {
      // Marked: when this process is gone, however (kill -9 included), the watchdog of
      // call-mark.ts ends the server and what it started, even one that ignores the end of stdin.
      ensureWatchdog();
      const child = spawn(this.options.command, this.options.args, {
        cwd: this.options.cwd,
        env: { ...this.options.env, [CALL_MARK_VARIABLE]: newCallMark() },
        stdio: ["pipe", "pipe", "pipe", ...(this.options.contained?.fd3 ? ["pipe" as const] : [])],
        // Its own session: it leads its own process group (close() stops the whole group), and a
        // terminal's Ctrl-C reaches armature, which closes it, rather than the server. Measured for
        // issue 11: the new session (on Linux, its own scheduler autogroup) costs nothing per call
        // against a server spawned in ours.
        detached: true,
      });
      this.child = child;
      const filter = this.options.contained?.fd3;
      const filterPipe = child.stdio[3];
      if (filter && filterPipe && "end" in filterPipe) {
        filterPipe.on("error", () => {});
        filterPipe.end(filter);
      }
      child.once("error", (err) => {
        reject(err);
        this.onerror?.(err);
      });
      child.once("spawn", () => {
        if (child.pid !== undefined) liveGroups.add(child.pid);
        resolve();
      });
      child.once("close", (code, signal) => {
        this.options.contained?.done();
        this.exitCode = code;
        this.exitSignal = signal;
        if (child.pid !== undefined) liveGroups.delete(child.pid);
        if (!this.closed) {
          this.closed = true;
          this.onclose?.();
        }
      });
      child.stdin?.on("error", (err) => this.onerror?.(err));
      child.stdout?.on("data", (chunk: Buffer) => this.reader.push(chunk, this.handlers));
      child.stderr?.on("data", (chunk: Buffer) => {
        this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-STDERR_TAIL);
      });
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin || stdin.destroyed) {
        reject(new Error("the server process is not running"));
        return;
      }
      if (stdin.write(`${JSON.stringify(message)}\n`)) resolve();
      else stdin.once("drain", resolve);
    });
  }

  /** Ends the server: stdin closed, then SIGTERM to its process group, SIGKILL after a grace period. */
  async close(): Promise<void> {
    const child = this.child;
    if (!child) return;
    const pid = child.pid;
    const wasClosed = this.closed;
    this.closed = true;
    try {
      child.stdin?.end();
    } catch {
      // already closed
    }
    if (child.exitCode === null && child.signalCode === null) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 300);
        child.once("close", () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    if (pid !== undefined) {
      await stopProcessGroup(pid, 1_000);
      liveGroups.delete(pid);
    }
    this.reader.clear();
    if (!wasClosed) this.onclose?.();
  }
}
