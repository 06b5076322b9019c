// What a session carries from one process to the next (`armature exec --session-dir`, or a
// library host that keeps its sessions between requests): the files it has read with their
// hashes, the working directory, rules the user allowed "always" for the session, and the
// records of background tasks. Plain JSON; `parseSessionSnapshot` checks what it is given.
import { statSync } from "node:fs";
import type { ReadFileEntry } from "../tool/read-file-state.js";
import type { PermissionRule, ToolUseContext } from "../tool/types.js";
import { TaskRegistry, taskRegistry, findTaskRegistry, type BackgroundTask, type TaskStatus } from "../tools/tasks/registry.js";

export const SESSION_SNAPSHOT_VERSION = 1;

export interface TaskRecord {
  id: string;
  type: string;
  description: string;
  outputPath: string;
  startedAt: number;
  status: TaskStatus;
  exitCode?: number | null;
  endedAt?: number;
  endNote?: string;
  readOffset: number;
  endReported: boolean;
}

export interface SessionSnapshot {
  version: typeof SESSION_SNAPSHOT_VERSION;
  sessionId: string;
  projectDir: string;
  cwd: string;
  /** Least recently used first. */
  readFiles: Array<[string, ReadFileEntry]>;
  /** Rules remembered for the session by an "always allow" answer. */
  rememberedRules: PermissionRule[];
  tasks: TaskRecord[];
}

export class SnapshotError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SnapshotError";
  }
}

export function takeSnapshot(context: ToolUseContext, rememberedRules: readonly PermissionRule[]): SessionSnapshot {
  return {
    version: SESSION_SNAPSHOT_VERSION,
    sessionId: context.session.id,
    projectDir: context.workspace.projectDir,
    cwd: context.workspace.cwd,
    readFiles: context.readFileState.list(),
    rememberedRules: rememberedRules.filter((r) => r.source === "session").map((r) => ({ ...r })),
    tasks: (findTaskRegistry(context)?.list() ?? []).map(taskRecord),
  };
}

function taskRecord(task: BackgroundTask): TaskRecord {
  const record: TaskRecord = {
    id: task.id,
    type: task.type,
    description: task.description,
    outputPath: task.outputPath,
    startedAt: task.startedAt,
    status: task.status,
    readOffset: task.readOffset,
    endReported: task.endReported,
  };
  if (task.exitCode !== undefined) record.exitCode = task.exitCode;
  if (task.endedAt !== undefined) record.endedAt = task.endedAt;
  if (task.endNote !== undefined) record.endNote = task.endNote;
  return record;
}

/**
 * Puts a snapshot's state into a fresh context. The working directory comes back only when the
 * project is the same and the directory still exists. A task that was running when the state
 * was saved did not outlive its process: it comes back as stopped, and the model is told.
 */
export function applySnapshot(context: ToolUseContext, snapshot: SessionSnapshot): void {
  for (const [path, entry] of snapshot.readFiles) context.readFileState.set(path, { ...entry });
  if (snapshot.projectDir === context.workspace.projectDir && snapshot.cwd !== context.workspace.cwd && isDirectory(snapshot.cwd)) {
    context.workspace.cwd = snapshot.cwd;
  }
  if (snapshot.tasks.length === 0) return;
  const registry: TaskRegistry = taskRegistry(context);
  for (const record of snapshot.tasks) {
    const wasRunning = record.status === "running";
    const task: BackgroundTask = {
      ...record,
      status: wasRunning ? "killed" : record.status,
      ...(wasRunning ? { endedAt: Date.now(), endNote: "it ended with the armature process that started it", endReported: false } : {}),
      done: Promise.resolve(),
      stop: () => Promise.resolve(),
    };
    registry.add(task);
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A snapshot from JSON, checked; a bad one is a SnapshotError naming what is wrong. */
export function parseSessionSnapshot(value: unknown): SessionSnapshot {
  if (!isRecord(value)) throw new SnapshotError("the state is not a JSON object");
  if (value.version !== SESSION_SNAPSHOT_VERSION) throw new SnapshotError(`unknown state version ${JSON.stringify(value.version)} (this armature reads ${SESSION_SNAPSHOT_VERSION})`);
  for (const key of ["sessionId", "projectDir", "cwd"] as const) {
    if (typeof value[key] !== "string") throw new SnapshotError(`${key} must be a string`);
  }
  const readFiles = value.readFiles;
  if (!Array.isArray(readFiles)) throw new SnapshotError("readFiles must be an array");
  for (const [i, item] of readFiles.entries()) {
    const ok =
      Array.isArray(item) &&
      typeof item[0] === "string" &&
      isRecord(item[1]) &&
      typeof item[1].contentHash === "string" &&
      typeof item[1].mtimeMs === "number" &&
      typeof item[1].partial === "boolean" &&
      typeof item[1].recordedAt === "number";
    if (!ok) throw new SnapshotError(`readFiles[${i}] must be [path, {contentHash, mtimeMs, partial, recordedAt}]`);
  }
  const rules = value.rememberedRules;
  if (!Array.isArray(rules)) throw new SnapshotError("rememberedRules must be an array");
  for (const [i, r] of rules.entries()) {
    if (!isRecord(r) || r.behavior !== "allow" || typeof r.toolName !== "string" || typeof r.raw !== "string" || typeof r.source !== "string") {
      throw new SnapshotError(`rememberedRules[${i}] must be an allow rule {behavior, toolName, raw, source}`);
    }
  }
  const tasks = value.tasks;
  if (!Array.isArray(tasks)) throw new SnapshotError("tasks must be an array");
  for (const [i, t] of tasks.entries()) {
    if (!isRecord(t) || typeof t.id !== "string" || typeof t.outputPath !== "string" || typeof t.status !== "string" || typeof t.description !== "string") {
      throw new SnapshotError(`tasks[${i}] must be a task record {id, type, description, outputPath, status, …}`);
    }
  }
  return value as unknown as SessionSnapshot;
}
