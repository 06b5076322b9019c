// Background tasks of a session (shell commands started with run_in_background; other kinds,
// such as background agents, may register too). Kept in `context.extensions`, which sub-agents
// share with their parent, and stopped by `session.close()` through a session clean-up.
import { randomBytes } from "node:crypto";
import type { ToolUseContext } from "../tool/types.js";

/**
 * Resolves when `work` settles, `signal` aborts or `timeoutMs` passes, whichever comes first,
 * leaving no listener or timer behind. The one wait for background work (runAgent's end, `-p`'s
 * wait after its answer, the AI SDK adapter's notifications).
 */
export async function untilSettled(work: Promise<unknown>, options: { signal?: AbortSignal | undefined; timeoutMs?: number } = {}): Promise<void> {
  const { signal, timeoutMs } = options;
  if (signal?.aborted) return;
  let onAbort: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  const stop = new Promise<void>((resolve) => {
    if (signal) signal.addEventListener("abort", (onAbort = () => resolve()), { once: true });
    if (timeoutMs !== undefined) timer = setTimeout(resolve, timeoutMs);
  });
  try {
    await Promise.race([work.then(() => undefined, () => undefined), stop]);
  } finally {
    if (onAbort) signal?.removeEventListener("abort", onAbort);
    clearTimeout(timer);
  }
}

export type TaskStatus = "running" | "completed" | "failed" | "killed";

export interface BackgroundTask {
  readonly id: string;
  /** `local_bash` for shell commands. */
  readonly type: string;
  /** What the task does (the Bash call's description, else its command). */
  readonly description: string;
  /** The shell command, for shell tasks. */
  readonly command?: string;
  readonly outputPath: string;
  readonly startedAt: number;
  status: TaskStatus;
  exitCode?: number | null;
  endedAt?: number;
  /** A note on how it ended (timed out, stopped, its exit status meaning). */
  endNote?: string;
  /** Bytes of the output file already returned by TaskOutput. */
  readOffset: number;
  /** The model has been told that it ended. */
  endReported: boolean;
  /** What the model is told when it has ended (a background agent's report), instead of the one-line note. */
  notification?: string;
  /**
   * The model was told it will hear when this ends (a command moved to the background at its
   * timeout): an agent run waits for it before it finishes, and gives the model a turn for it.
   */
  awaitedByRun?: boolean;
  /** The agent that started it (undefined: the main agent); its notification goes to that agent only. */
  ownerAgentId?: string;
  /** Resolves when the task has ended. */
  readonly done: Promise<void>;
  /** Stops it and everything it started; resolves when it has ended. */
  stop(): Promise<void>;
}

export const TASK_REGISTRY_KEY = "armature.tasks";

export class TaskRegistry {
  private readonly tasks = new Map<string, BackgroundTask>();
  private readonly endListeners = new Set<(task: BackgroundTask) => void>();
  /** Told of each task whose end the model is told of (a notification, TaskOutput, TaskStop). */
  readonly onReported = new Set<(task: BackgroundTask) => void>();

  /** A short id that is not in use (`b` and 8 hex digits). */
  newId(): string {
    for (;;) {
      const id = `b${randomBytes(4).toString("hex")}`;
      if (!this.tasks.has(id)) return id;
    }
  }

  add(task: BackgroundTask): void {
    this.tasks.set(task.id, task);
    void task.done.then(() => {
      for (const listener of [...this.endListeners]) listener(task);
    });
  }

  /** Calls `listener` after each task ends (its status and notification are final then); returns a function that removes it. */
  onEnd(listener: (task: BackgroundTask) => void): () => void {
    this.endListeners.add(listener);
    return () => this.endListeners.delete(listener);
  }

  get(id: string): BackgroundTask | undefined {
    return this.tasks.get(id);
  }

  list(): BackgroundTask[] {
    return [...this.tasks.values()];
  }

  running(): BackgroundTask[] {
    return this.list().filter((t) => t.status === "running");
  }

  /**
   * One notification per task `ownerAgentId` started (undefined: the main agent) that ended since
   * it was last told (by a notification, TaskOutput or TaskStop), marking them told: the session
   * adds them to a turn's newMessages. A background agent's carries its report.
   */
  takeEndNotifications(ownerAgentId?: string): string[] {
    const notes: string[] = [];
    for (const task of this.tasks.values()) {
      if (task.status === "running" || task.endReported || task.ownerAgentId !== ownerAgentId) continue;
      this.reported(task);
      notes.push(task.notification ?? taskNotification(task));
    }
    return notes;
  }

  /**
   * Running tasks of `ownerAgentId` whose end the model was promised: background agents (their
   * report is the answer) and commands moved to the background at their timeout. A loop waits for
   * these before it ends; other background commands (a dev server) may run on.
   */
  promised(ownerAgentId?: string): BackgroundTask[] {
    return this.running().filter((t) => (t.type === "local_agent" || t.awaitedByRun === true) && t.ownerAgentId === ownerAgentId);
  }

  /** Marks an ended task's end as told to the model. */
  reported(task: BackgroundTask): void {
    if (task.endReported) return;
    task.endReported = true;
    for (const listener of this.onReported) listener(task);
  }

  /** Stops every running task (session close). */
  async stopAll(): Promise<void> {
    await Promise.allSettled(this.running().map((t) => t.stop()));
  }
}

/** The session's registry, created on first use with a clean-up that stops its tasks. */
export function taskRegistry(context: ToolUseContext): TaskRegistry {
  const existing = context.extensions.get(TASK_REGISTRY_KEY);
  if (existing instanceof TaskRegistry) return existing;
  const registry = new TaskRegistry();
  context.extensions.set(TASK_REGISTRY_KEY, registry);
  context.session.cleanups.add(() => registry.stopAll());
  return registry;
}

/** The registry if one exists (never creates one). */
export function findTaskRegistry(context: ToolUseContext): TaskRegistry | undefined {
  const existing = context.extensions.get(TASK_REGISTRY_KEY);
  return existing instanceof TaskRegistry ? existing : undefined;
}

/** The error for a task id that names no task (the reference's text). */
export function unknownTaskMessage(id: string): string {
  return `No task found with ID: ${id}`;
}

/** The reference agent's background-task event, as the model reads it. */
export function taskNotification(task: BackgroundTask): string {
  const code = task.exitCode === undefined || task.exitCode === null ? "" : ` (exit code ${task.exitCode})`;
  const what = task.type === "local_bash" ? `Background command "${task.description}"` : `Background task "${task.description}"`;
  const how = task.status === "killed" ? "was stopped" : `${task.status}${code}`;
  return (
    "[SYSTEM NOTIFICATION - NOT USER INPUT]\nThis is an automated background-task event, NOT a message from the user.\n" +
    `<task-notification>\n<task-id>${task.id}</task-id>\n<output-file>${task.outputPath}</output-file>\n<status>${task.status}</status>\n` +
    `<summary>${what} ${how}${task.endNote ? `: ${task.endNote}` : ""}</summary>\n</task-notification>`
  );
}
