// Runs one command: `<shell> -c`, its own process group, stdin from /dev/null, no terminal,
// output streamed to a file, the final working directory reported through a file.
import { spawn } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { constants as osConstants } from "node:os";
import { OutputCapture, type StreamName } from "./output.js";
import { groupAlive, stopProcessGroup } from "./process-group.js";

export interface RunShellOptions {
  shell: string;
  command: string;
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  /** Aborting it stops the command (the call was interrupted). */
  signal?: AbortSignal;
  outputPath: string;
  /** Where the shell writes its final working directory on exit. */
  cwdFile: string;
  maxInlineChars: number;
  /** Between SIGTERM and SIGKILL. */
  killGraceMs: number;
  /** Output past this many bytes stops the command. */
  maxOutputBytes: number;
  /** Arguments put in front of the shell (the sandbox). */
  wrapper?: { file: string; args: (shellArgv: string[]) => string[] };
  onChunk?: (stream: StreamName, text: string) => void;
}

export type StopReason = "timeout" | "abort" | "output-limit" | "stopped";

export interface ShellOutcome {
  /** The exit status as a shell reports it (128+N for a signal); null when it never started. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** Why armature stopped it, when it did. */
  stoppedBy?: StopReason;
  /** Processes the command left running in the background were stopped when it finished. */
  strayProcessesStopped: boolean;
  /** The shell's working directory when it exited, as it reported it. */
  finalCwd?: string;
  capture: OutputCapture;
  /** The shell could not be started. */
  spawnError?: Error;
  /** Writing the output file failed (the inline windows are still right). */
  fileError?: Error;
  durationMs: number;
}

export interface RunningShell {
  readonly pid: number | undefined;
  readonly capture: OutputCapture;
  readonly done: Promise<ShellOutcome>;
  /** Stops the command and everything it started; resolves when it has ended. */
  stop(reason?: StopReason): Promise<ShellOutcome>;
}

/** How long the pipes may stay open after everything of the group was stopped (a setsid escapee). */
const PIPE_DRAIN_MS = 500;

/**
 * The script given to `-c`: an EXIT trap that records the final directory, stderr joined to
 * stdout (one pipe keeps the order in which the command wrote, as a terminal shows it), then the
 * command on the same line so that line numbers in the shell's messages match the command. The
 * trap keeps the exit status; if the command replaces it, the directory is simply not learned.
 */
export function wrapCommand(command: string, cwdFile: string): string {
  return `trap 'pwd -P >| ${shellQuote(cwdFile)} 2>/dev/null' EXIT; exec 2>&1; ${command}`;
}

export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * Groups still running. The command is detached (its own session), so it would outlive this
 * process: when the process exits (even on an uncaught exception), whatever is left is killed.
 */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

function trackGroup(pgid: number): void {
  liveGroups.add(pgid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const group of liveGroups) {
      try {
        process.kill(-group, "SIGKILL");
      } catch {
        // already gone
      }
    }
  });
}

export function startShell(options: RunShellOptions): RunningShell {
  const started = Date.now();
  const capture = new OutputCapture({ outputPath: options.outputPath, maxInlineChars: options.maxInlineChars, onChunk: options.onChunk });
  const shellArgv = [options.shell, "-c", wrapCommand(options.command, options.cwdFile)];
  const file = options.wrapper ? options.wrapper.file : options.shell;
  const args = options.wrapper ? options.wrapper.args(shellArgv) : shellArgv.slice(1);

  const child = spawn(file, args, {
    cwd: options.cwd,
    env: options.env,
    // Its own session and process group: no controlling terminal, and one signal reaches all of it.
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });

  if (child.pid !== undefined) trackGroup(child.pid);
  let stoppedBy: StopReason | undefined;
  let stopping: Promise<void> | undefined;
  let exited = false;
  let strayProcessesStopped = false;

  const stop = (reason: StopReason): Promise<void> => {
    if (stopping) return stopping;
    stoppedBy ??= reason;
    stopping = child.pid === undefined ? Promise.resolve() : stopProcessGroup(child.pid, options.killGraceMs);
    return stopping;
  };

  // Output: to the capture; when the file falls behind, both pipes wait for it.
  let paused = false;
  const pause = (): void => {
    if (paused) return;
    paused = true;
    child.stdout?.pause();
    child.stderr?.pause();
    capture.onDrain(() => {
      paused = false;
      child.stdout?.resume();
      child.stderr?.resume();
    });
  };
  let lastDataAt = Date.now();
  const onData = (stream: StreamName) => (chunk: Buffer): void => {
    lastDataAt = Date.now();
    if (!capture.write(stream, chunk)) pause();
    if (capture.totalBytes > options.maxOutputBytes) void stop("output-limit");
  };
  child.stdout?.on("data", onData("stdout"));
  child.stderr?.on("data", onData("stderr"));
  const pipesClosed = Promise.all([child.stdout, child.stderr].map((s) => (s ? new Promise<void>((r) => s.once("close", () => r())) : Promise.resolve())));

  const timer = setTimeout(() => void stop("timeout"), options.timeoutMs);
  const onAbort = (): void => void stop("abort");
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener("abort", onAbort, { once: true });

  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((resolve) => {
    child.once("error", (error) => resolve({ code: null, signal: null, error }));
    child.once("exit", (code, sig) => resolve({ code, signal: sig }));
  });

  const done = (async (): Promise<ShellOutcome> => {
    const result = await exit;
    exited = true;
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
    if (result.error) {
      child.stdout?.destroy();
      child.stderr?.destroy();
      await capture.close();
      return { exitCode: null, signal: null, strayProcessesStopped: false, capture, spawnError: result.error, durationMs: Date.now() - started };
    }
    // What the command left running (`server &`) does not outlive the call: the caller asks for
    // run_in_background to keep something running.
    if (child.pid !== undefined && !stopping && groupAlive(child.pid)) {
      strayProcessesStopped = true;
      await stop("stopped");
      stoppedBy = undefined;
    } else if (stopping) {
      await stopping;
    }
    // A process that escaped the group may still hold the pipes: read while output flows, and let
    // go once they have been quiet for a moment.
    // The exit may be seen before the last bytes are read: the quiet period starts now.
    lastDataAt = Date.now();
    let closed = false;
    void pipesClosed.then(() => (closed = true));
    while (!closed && (paused || Date.now() - lastDataAt < PIPE_DRAIN_MS)) {
      await Promise.race([pipesClosed, sleep(50)]);
    }
    child.stdout?.destroy();
    child.stderr?.destroy();
    if (child.pid !== undefined) liveGroups.delete(child.pid);
    const fileError = await capture.close();
    const finalCwd = readCwdFile(options.cwdFile);
    const outcome: ShellOutcome = {
      exitCode: result.code ?? signalExitCode(result.signal),
      signal: result.signal,
      strayProcessesStopped,
      capture,
      durationMs: Date.now() - started,
    };
    if (stoppedBy) outcome.stoppedBy = stoppedBy;
    if (finalCwd !== undefined) outcome.finalCwd = finalCwd;
    if (fileError) outcome.fileError = fileError;
    return outcome;
  })();

  return {
    pid: child.pid,
    capture,
    done,
    async stop(reason: StopReason = "stopped") {
      if (!exited) await stop(reason);
      return done;
    },
  };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function signalExitCode(signal: NodeJS.Signals | null): number | null {
  if (!signal) return null;
  const n = osConstants.signals[signal];
  return n === undefined ? null : 128 + n;
}

/** Sync on purpose: a few bytes, and one event-loop turn less on every call. */
function readCwdFile(path: string): string | undefined {
  try {
    const text = readFileSync(path, "utf8");
    rmSync(path, { force: true });
    const lines = text.split("\n").filter((l) => l.trim() !== "");
    return lines.at(-1);
  } catch {
    return undefined;
  }
}
