// Ending a process on SIGTERM / SIGINT / SIGHUP without leaving anything behind. Node's default
// for these signals is to die at once, which skips every clean-up: the shell commands a session
// started run in their own process groups (so that one signal reaches all of a command), and they
// would be re-parented to PID 1 and keep running.
import { constants } from "node:os";
import type { Session } from "./session.js";

export type TerminationSignal = "SIGTERM" | "SIGINT" | "SIGHUP";

const DEFAULT_SIGNALS: readonly TerminationSignal[] = ["SIGTERM", "SIGINT", "SIGHUP"];

/** The exit status a shell reports for a process ended by `signal`: 128 + its number. */
export function signalExitCode(signal: TerminationSignal): number {
  return 128 + constants.signals[signal];
}

export interface SignalExitOptions {
  signals?: readonly TerminationSignal[];
  /** Called after the clean-up (default: `process.exit(128 + signal number)`). */
  exit?: (code: number, signal: TerminationSignal) => void;
}

/**
 * On the first of `signals`, runs `cleanUp` and exits with 128 + the signal's number. A second
 * signal while it cleans up exits at once (whatever still runs in a process group the session
 * started is SIGKILLed by the exit hook of the shell runner). Returns a function that removes
 * the handlers.
 */
export function exitOnSignals(cleanUp: (signal: TerminationSignal) => Promise<void>, options: SignalExitOptions = {}): () => void {
  const signals = options.signals ?? DEFAULT_SIGNALS;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let stopping = false;
  const handler = (signal: TerminationSignal): void => {
    const code = signalExitCode(signal);
    if (stopping) {
      exit(code, signal);
      return;
    }
    stopping = true;
    cleanUp(signal).then(
      () => exit(code, signal),
      (err: unknown) => {
        process.stderr.write(`armature: clean-up after ${signal} failed: ${err instanceof Error ? err.message : String(err)}\n`);
        exit(code, signal);
      },
    );
  };
  for (const signal of signals) process.on(signal, handler);
  return () => {
    for (const signal of signals) process.removeListener(signal, handler);
  };
}

/**
 * For a library host: close `session` when the process is told to stop, then exit with 128 +
 * the signal's number. Every process the session's calls and background tasks started is
 * stopped first. Returns a function that removes the handlers (call it after `session.close()`).
 */
export function closeSessionOnSignals(session: Pick<Session, "close">, options: SignalExitOptions = {}): () => void {
  return exitOnSignals(() => session.close(), options);
}
