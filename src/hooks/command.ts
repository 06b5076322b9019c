import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import type { HookExecution } from "./verdict.js";
import type { ProjectCodeBoundary } from "../sandbox/project-code.js";
import { CALL_MARK_VARIABLE, ensureWatchdog, newCallMark } from "../sandbox/call-mark.js";
import { trustedExecutable } from "../sandbox/trusted-executable.js";

/** Raw output kept per stream (what is parsed); strings handed on are capped much lower. */
const MAX_CAPTURE_CHARS = 1 << 20;
/** After the hook's process exits, how long output still held open by its background children is awaited. */
const DRAIN_MS = 200;

export interface CommandHookSpec {
  command: string;
  /** Present: exec form (`command` is the program, no shell). */
  args?: string[];
}

export interface CommandRunOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** Between SIGTERM and SIGKILL of the hook's process group. */
  killGraceMs: number;
  signal?: AbortSignal;
  /** Runs the command inside the sandbox's boundary (a project's own hook). */
  boundary?: ProjectCodeBoundary;
}

let cachedShell: string | undefined;

/**
 * `bash`, else `sh`, from the system's folders (a `bash` a project put on PATH is never it): hooks
 * are written for bash, but a minimal image may have only sh.
 */
export function hookShell(): string {
  cachedShell ??= trustedExecutable("bash") ?? trustedExecutable("sh") ?? "/bin/sh";
  return cachedShell;
}

/**
 * Runs one command hook: the input JSON on stdin, in its own process group, cwd = the project.
 * Resolves (never rejects) with how it ended. On timeout or abort the whole group gets SIGTERM,
 * then SIGKILL after the grace period; the promise settles even if a stray child keeps a pipe open.
 */
export function runCommandHook(spec: CommandHookSpec, stdin: string, options: CommandRunOptions): Promise<HookExecution> {
  return new Promise<HookExecution>((resolve) => {
    if (options.signal?.aborted) {
      resolve({ kind: "aborted" });
      return;
    }
    const [program, programArgs] = spec.args !== undefined ? [spec.command, spec.args] : [hookShell(), ["-c", spec.command]];
    const contained = options.boundary?.(program, programArgs);
    if (contained && "refused" in contained) {
      resolve({ kind: "spawn-error", message: `the project's hook was not run: ${contained.refused}` });
      return;
    }
    const [file, argv] = contained ? [contained.file, contained.args] : [program, programArgs];
    let child: ReturnType<typeof spawn>;
    try {
      // Marked, so that what it leaves running (`server &`, setsid) is found and ended when this
      // process exits, however it exits (the watchdog of call-mark.ts).
      ensureWatchdog();
      const env = { ...options.env, [CALL_MARK_VARIABLE]: newCallMark() };
      child = spawn(file, argv, { cwd: options.cwd, env, detached: true, stdio: ["pipe", "pipe", "pipe", ...(contained?.fd3 ? ["pipe" as const] : [])], windowsHide: true });
    } catch (err) {
      resolve({ kind: "spawn-error", message: (err as Error).message });
      return;
    }
    const filterPipe = child.stdio[3];
    if (contained?.fd3 && filterPipe && "end" in filterPipe) {
      filterPipe.on("error", () => {});
      filterPipe.end(contained.fd3);
    }
    let stdout = "";
    let stderr = "";
    let stopped: "timeout" | "aborted" | undefined;
    let settled = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    const timers: NodeJS.Timeout[] = [];

    const killGroup = (sig: NodeJS.Signals): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, sig);
      } catch {
        try {
          child.kill(sig);
        } catch {
          // already gone
        }
      }
    };
    const stop = (why: "timeout" | "aborted"): void => {
      if (stopped || settled) return;
      stopped = why;
      killGroup("SIGTERM");
      const hard = setTimeout(() => killGroup("SIGKILL"), options.killGraceMs);
      hard.unref();
      // Last resort: a process that survives SIGKILL (uninterruptible I/O) still does not hang the session.
      timers.push(setTimeout(() => finish(), options.killGraceMs + 1_000));
    };
    const onAbort = (): void => stop("aborted");

    const finish = (): void => {
      if (settled) return;
      settled = true;
      contained?.done();
      for (const t of timers) clearTimeout(t);
      options.signal?.removeEventListener("abort", onAbort);
      child.stdout?.destroy();
      child.stderr?.destroy();
      child.stdin?.destroy();
      if (stopped === "timeout") resolve({ kind: "timeout", seconds: options.timeoutMs / 1000 });
      else if (stopped === "aborted") resolve({ kind: "aborted" });
      else if (!exit) resolve({ kind: "spawn-error", message: "the process ended without an exit status" });
      else if (exit.code !== null) resolve({ kind: "exit", code: exit.code, stdout, stderr });
      else resolve({ kind: "signal", signal: exit.signal ?? "an unknown signal", stderr });
    };

    child.stdout?.setEncoding("utf8");
    child.stderr?.setEncoding("utf8");
    child.stdout?.on("data", (chunk: string) => {
      if (stdout.length < MAX_CAPTURE_CHARS) stdout += chunk.slice(0, MAX_CAPTURE_CHARS - stdout.length);
    });
    child.stderr?.on("data", (chunk: string) => {
      if (stderr.length < MAX_CAPTURE_CHARS) stderr += chunk.slice(0, MAX_CAPTURE_CHARS - stderr.length);
    });
    child.stdout?.on("error", () => {});
    child.stderr?.on("error", () => {});
    // A hook that never reads stdin and exits makes the write fail with EPIPE: not an error of ours.
    child.stdin?.on("error", () => {});

    child.on("error", (err: NodeJS.ErrnoException) => {
      if (exit || settled) return;
      settled = true;
      for (const t of timers) clearTimeout(t);
      options.signal?.removeEventListener("abort", onAbort);
      // spawn reports a missing cwd as the program being missing: say which it is.
      const message = err.code === "ENOENT" && !existsSync(options.cwd) ? `the project directory ${options.cwd} does not exist` : err.message;
      resolve({ kind: "spawn-error", message });
    });
    child.on("exit", (code, signal) => {
      exit = { code, signal };
      // Output may still be in the pipes; a background child may hold them open forever.
      timers.push(setTimeout(finish, DRAIN_MS));
    });
    child.on("close", () => finish());

    timers.push(setTimeout(() => stop("timeout"), options.timeoutMs));
    options.signal?.addEventListener("abort", onAbort, { once: true });
    child.stdin?.end(stdin);
  });
}
