// What a session carries from one process to the next (`armature exec --session-dir`, or a
// library host that keeps its sessions between requests): the files it has read with their
// hashes, the working directory, rules the user allowed "always" for the session, and the
// records of background tasks. Plain JSON; `parseSessionSnapshot` checks what it is given.
import { realpathSync, statSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve } from "node:path";
import type { ReadFileEntry } from "../tool/read-file-state.js";
import type { PermissionRule, ToolUseContext } from "../tool/types.js";
import { restoreWorktree, within, worktreeRecord, type WorktreeRecord } from "../worktrees/restore.js";
import { TaskRegistry, taskRegistry, findTaskRegistry, type BackgroundTask, type TaskStatus } from "../tasks/registry.js";

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
  /** The worktree the session was in (EnterWorktree); `projectDir` is then the project it came from. */
  worktree?: WorktreeRecord;
}

export class SnapshotError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SnapshotError";
  }
}

export function takeSnapshot(context: ToolUseContext, rememberedRules: readonly PermissionRule[]): SessionSnapshot {
  const worktree = worktreeRecord(context);
  return {
    version: SESSION_SNAPSHOT_VERSION,
    sessionId: context.session.id,
    projectDir: worktree?.back.projectDir ?? context.workspace.projectDir,
    cwd: context.workspace.cwd,
    readFiles: context.readFileState.list(),
    rememberedRules: rememberedRules.filter((r) => r.source === "session").map((r) => ({ ...r })),
    tasks: (findTaskRegistry(context)?.list() ?? []).map(taskRecord),
    ...(worktree ? { worktree } : {}),
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
  // The working directory only inside the project (or the worktree, checked by git): a snapshot
  // naming another folder must not move the session there.
  const sameProject = snapshot.projectDir === context.workspace.projectDir;
  const worktreeRefused = sameProject && snapshot.worktree ? restoreWorktree(context, snapshot.worktree, snapshot.sessionId, snapshot.cwd) : "none";
  if (sameProject && worktreeRefused !== undefined && snapshot.cwd !== context.workspace.cwd && isDirectory(snapshot.cwd) && within(realOrResolved(snapshot.cwd), realOrResolved(context.workspace.projectDir))) {
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
  const w = value.worktree;
  if (w !== undefined) {
    const ok = isRecord(w) && typeof w.path === "string" && typeof w.branch === "string" && typeof w.base === "string" && typeof w.created === "boolean" && isRecord(w.back) && typeof w.back.projectDir === "string" && typeof w.back.cwd === "string";
    if (!ok) throw new SnapshotError("worktree must be {path, branch, base, created, back: {projectDir, cwd}}");
  }
  return value as unknown as SessionSnapshot;
}

function realOrResolved(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    // Not there (a task's output not written yet): its folder's real path, then the name.
    try {
      return resolve(realpathSync.native(dirname(path)), relative(dirname(path), path));
    } catch {
      return resolve(path);
    }
  }
}

function inside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
}

/**
 * What of a saved state may come back. A state file is only as trustworthy as whoever wrote it:
 * `verified` says this user's armature signed it for `projectDir` (session-home's key). Without
 * that, the rules it carries ("always allowed" answers) and the files it says were read are
 * dropped; task records come back only when their output file is inside the session's own
 * folder (a planted record must not point TaskOutput at another file). Returns the state to
 * restore and, for the user, what was dropped.
 */
export function vetSnapshot(snapshot: SessionSnapshot, options: { verified: boolean; projectDir: string; sessionDir: string }): { snapshot: SessionSnapshot; dropped: string[] } {
  const dropped: string[] = [];
  const sameProject = realOrResolved(snapshot.projectDir) === realOrResolved(options.projectDir);
  let { rememberedRules, readFiles } = snapshot;
  if (!options.verified || !sameProject) {
    const why = !options.verified ? "it was not written by your armature (no valid signature)" : `it was saved for ${snapshot.projectDir}`;
    if (rememberedRules.length > 0) dropped.push(`${rememberedRules.length} remembered allow rule${rememberedRules.length === 1 ? "" : "s"} (${rememberedRules.map((r) => r.raw).join(", ")}): ${why}`);
    if (readFiles.length > 0) dropped.push(`the record of ${readFiles.length} file${readFiles.length === 1 ? "" : "s"} read: ${why}`);
    rememberedRules = [];
    readFiles = [];
  }
  const folder = realOrResolved(options.sessionDir);
  const tasks = snapshot.tasks.filter((t) => {
    const ok = isAbsolute(t.outputPath) && inside(realOrResolved(t.outputPath), folder);
    if (!ok) dropped.push(`task ${t.id}: its output file ${t.outputPath} is not in the session's folder`);
    return ok;
  });
  let worktree = snapshot.worktree;
  if (worktree?.created && !options.verified) {
    dropped.push(`the right to remove the worktree ${worktree.path} (it is entered, and left as it is): it was not written by your armature (no valid signature)`);
    worktree = { ...worktree, created: false };
  }
  return { snapshot: { ...snapshot, rememberedRules, readFiles, tasks, ...(worktree ? { worktree } : {}) }, dropped };
}
