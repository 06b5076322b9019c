// Runs one command: `<shell> -c`, its own process group, stdin from /dev/null, no terminal,
// stdout and stderr both the output file, the final working directory reported through a file.
import { spawn } from "node:child_process";
import { closeSync, constants as fsConstants, fstatSync, openSync, readSync, rmSync } from "node:fs";
import { Socket } from "node:net";
import { constants as osConstants } from "node:os";
import { CALL_MARK_VARIABLE, ensureWatchdog, pidsNow, processesMarked, type CallScope } from "../../sandbox/call-mark.js";
import { OutputFollower, type KeptOutput } from "./output.js";
import { groupAlive, stopProcessGroup } from "./process-group.js";

export interface RunShellOptions {
  shell: string;
  command: string;
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  /** Aborting it stops the command (the call was interrupted). */
  signal?: AbortSignal;
  /** The file the command's stdout and stderr are. */
  outputPath: string;
  /** Where the shell writes its final working directory on exit. */
  cwdFile: string;
  /** Between SIGTERM and SIGKILL. */
  killGraceMs: number;
  /** Output past this many bytes stops the command. */
  maxOutputBytes: number;
  /** Once the command has ended, output over this is cut to its head and tail (keepHeadAndTail). */
  keepOutputBytes?: number;
  /** How often the output file is looked at while the command runs (progress, output limit). */
  pollMs: number;
  /**
   * The call's mark (see sandbox/call-mark.ts), put in the command's environment: what carries it
   * is stopped with the command, and by the watchdog if armature dies. Outside the sandbox only;
   * inside it the PID namespace holds every process.
   */
  mark?: string;
  /** Arguments put in front of the shell (the sandbox). */
  wrapper?: ShellWrapper;
  /** New output as text while it runs, with the output's size so far. */
  onChunk?: (text: string, totalBytes: number) => void;
  /**
   * What the timeout does: stop the command (the default), or move it to the background — it
   * goes on running, the abort signal and onChunk no longer reach it, `moved` resolves, and it
   * is stopped only when `backgroundLimitMs` more have passed.
   */
  onTimeout?: "stop" | "background";
  /** How long a command moved to the background may go on running (default 10 min). */
  backgroundLimitMs?: number;
}

/** What starts the shell inside the sandbox: bwrap, its arguments, and the descriptors it reads. */
export interface ShellWrapper {
  file: string;
  args: (shellArgv: string[]) => string[];
  /** Written to the child's fd 3 and closed (bwrap's `--seccomp 3`). */
  fd3?: Buffer;
  /** An IPC channel at fd 4 (the network bridge): every socket the child hands over comes here. */
  onSocket?: (socket: Socket) => void;
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
  outputPath: string;
  /** Size of the output file when the command ended. */
  outputBytes: number;
  /** The output was over keepOutputBytes: what its file keeps. */
  kept?: KeptOutput;
  /** The shell could not be started (or the output file not created). */
  spawnError?: Error;
  durationMs: number;
}

export interface RunningShell {
  readonly pid: number | undefined;
  readonly done: Promise<ShellOutcome>;
  /** Resolves when the timeout moved the command to the background (never, otherwise). */
  readonly moved: Promise<void>;
  /** Stops the command and everything it started; resolves when it has ended. */
  stop(reason?: StopReason): Promise<ShellOutcome>;
}

/**
 * The script given to `-c`: an EXIT trap that records the final directory, then the command on
 * the same line so that line numbers in the shell's messages match the command. The trap keeps
 * the exit status; if the command replaces it, the directory is simply not learned.
 */
export function wrapCommand(command: string, cwdFile: string): string {
  return `trap 'pwd -P >| ${shellQuote(cwdFile)} 2>/dev/null' EXIT; ${command}`;
}

export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * Groups still running. The command is detached (its own session), so it would outlive this
 * process: when the process exits (even on an uncaught exception), whatever is left is killed.
 */
const liveGroups = new Map<number, CallScope | undefined>();
let exitHookInstalled = false;

function trackGroup(pgid: number, mark: CallScope | undefined): void {
  liveGroups.set(pgid, mark);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const [group, groupMark] of liveGroups) {
      const pids = groupMark === undefined ? [] : processesMarked(groupMark.mark);
      for (const target of [-group, ...pids]) {
        try {
          process.kill(target, "SIGKILL");
        } catch {
          // already gone
        }
      }
    }
  });
}

/** How long a command the timeout moved to the background may go on running. */
const DEFAULT_BACKGROUND_LIMIT_MS = 10 * 60_000;

function failedStart(options: RunShellOptions, started: number, error: Error): RunningShell {
  const outcome: ShellOutcome = {
    exitCode: null,
    signal: null,
    strayProcessesStopped: false,
    outputPath: options.outputPath,
    outputBytes: 0,
    spawnError: error,
    durationMs: Date.now() - started,
  };
  const done = Promise.resolve(outcome);
  return { pid: undefined, done, moved: new Promise<void>(() => {}), stop: () => done };
}

export function startShell(options: RunShellOptions): RunningShell {
  const started = Date.now();
  const shellArgv = [options.shell, "-c", wrapCommand(options.command, options.cwdFile)];
  const file = options.wrapper ? options.wrapper.file : options.shell;
  const args = options.wrapper ? options.wrapper.args(shellArgv) : shellArgv.slice(1);

  // One open file for stdout and stderr: the kernel keeps the order in which the command wrote,
  // as on a terminal, and nothing passes through this process. Read/write, so the same
  // descriptor serves to follow it.
  let fd: number;
  try {
    fd = openSync(options.outputPath, "w+", 0o600);
  } catch (err) {
    return failedStart(options, started, err as Error);
  }
  const mark: CallScope | undefined = options.mark === undefined ? undefined : { mark: options.mark, before: pidsNow() };
  if (mark !== undefined) ensureWatchdog();
  let child;
  try {
    child = spawn(file, args, {
      cwd: options.cwd,
      env: mark === undefined ? options.env : { ...options.env, [CALL_MARK_VARIABLE]: mark.mark },
      // Its own session and process group: no controlling terminal, and one signal reaches all of it.
      detached: true,
      stdio: ["ignore", fd, fd, ...(options.wrapper?.fd3 ? ["pipe" as const] : options.wrapper?.onSocket ? ["ignore" as const] : []), ...(options.wrapper?.onSocket ? ["ipc" as const] : [])],
    });
  } catch (err) {
    closeSync(fd);
    return failedStart(options, started, err as Error);
  }
  // Listened to at once: out of descriptors (EMFILE) spawn makes no pipes (child.stdio is empty)
  // and reports on the next tick, and an error nobody listens to would end the process.
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((resolve) => {
    child.once("error", (error) => resolve({ code: null, signal: null, error }));
    child.once("exit", (code, sig) => resolve({ code, signal: sig }));
  });
  const pid = child.pid;
  if (pid !== undefined) trackGroup(pid, mark);
  const fd3 = options.wrapper?.fd3;
  const input3 = child.stdio?.[3];
  if (fd3 && input3 && "end" in input3) {
    input3.on("error", () => {});
    input3.end(fd3);
  }
  const onSocket = options.wrapper?.onSocket;
  if (onSocket) {
    child.on("message", (_message, handle) => {
      if (handle instanceof Socket) onSocket(handle);
    });
  }

  let stoppedBy: StopReason | undefined;
  let stopping: Promise<void> | undefined;
  let exited = false;
  const stop = (reason: StopReason): Promise<void> => {
    if (stopping) return stopping;
    stoppedBy ??= reason;
    stopping = pid === undefined ? Promise.resolve() : stopProcessGroup(pid, options.killGraceMs, mark);
    return stopping;
  };

  let inBackground = false;
  const onChunk = options.onChunk;
  const follower = new OutputFollower(fd, {
    intervalMs: options.pollMs,
    maxBytes: options.maxOutputBytes,
    ...(options.keepOutputBytes !== undefined ? { keepBytes: options.keepOutputBytes } : {}),
    onLimit: () => void stop("output-limit"),
    ...(onChunk ? { onChunk: (text: string, totalBytes: number) => (inBackground ? undefined : onChunk(text, totalBytes)) } : {}),
  });
  follower.start();

  let markMoved: () => void = () => {};
  const moved = new Promise<void>((resolve) => (markMoved = resolve));
  let timer = setTimeout(() => {
    if (options.onTimeout !== "background" || exited || stopping) {
      void stop("timeout");
      return;
    }
    inBackground = true;
    options.signal?.removeEventListener("abort", onAbort);
    timer = setTimeout(() => void stop("timeout"), options.backgroundLimitMs ?? DEFAULT_BACKGROUND_LIMIT_MS);
    markMoved();
  }, options.timeoutMs);
  const onAbort = (): void => void stop("abort");
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener("abort", onAbort, { once: true });

  const done = (async (): Promise<ShellOutcome> => {
    const result = await exit;
    exited = true;
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
    let strayProcessesStopped = false;
    if (!result.error) {
      // What the command left running (`server &`) does not outlive the call: the caller asks
      // for run_in_background to keep something running. Inside the sandbox the kernel ends
      // it: the PID namespace goes with bwrap's init, so nothing there needs finding.
      if (pid !== undefined && !stopping && !options.wrapper && (await groupAlive(pid, mark))) {
        strayProcessesStopped = true;
        await stop("stopped");
        stoppedBy = undefined;
      } else if (stopping) {
        await stopping;
      }
    }
    if (pid !== undefined) liveGroups.delete(pid);
    const outputBytes = follower.finish();
    const outcome: ShellOutcome = {
      exitCode: result.error ? null : (result.code ?? signalExitCode(result.signal)),
      signal: result.error ? null : result.signal,
      strayProcessesStopped,
      outputPath: options.outputPath,
      outputBytes,
      durationMs: Date.now() - started,
    };
    if (result.error) outcome.spawnError = result.error;
    if (follower.kept) outcome.kept = follower.kept;
    if (stoppedBy) outcome.stoppedBy = stoppedBy;
    const finalCwd = readCwdFile(options.cwdFile);
    if (finalCwd !== undefined) outcome.finalCwd = finalCwd;
    return outcome;
  })();

  return {
    pid,
    done,
    moved,
    async stop(reason: StopReason = "stopped") {
      if (!exited) await stop(reason);
      return done;
    },
  };
}

function signalExitCode(signal: NodeJS.Signals | null): number | null {
  if (!signal) return null;
  const n = osConstants.signals[signal];
  return n === undefined ? null : 128 + n;
}

/** A path is at most this long: more in the report is not a path. */
const CWD_REPORT_MAX = 64 * 1024;

/**
 * Sync on purpose: a few bytes, and one event-loop turn less on every call. The report folder is
 * writable by the command, so what is there may be anything: a link is not followed, a FIFO is not
 * waited on, only a regular file is read, and only its first 64 KB.
 */
function readCwdFile(path: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
    if (!fstatSync(fd).isFile()) return undefined;
    const buffer = Buffer.alloc(CWD_REPORT_MAX);
    const n = readSync(fd, buffer, 0, CWD_REPORT_MAX, 0);
    const lines = buffer.subarray(0, n).toString("utf8").split("\n").filter((l) => l.trim() !== "");
    return lines.at(-1);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
    try {
      rmSync(path, { force: true });
    } catch {
      // a folder put there by the command: left, the next call's report has its own name
    }
  }
}
