import { randomUUID } from "node:crypto";
import { tmpdir } from "node:os";
import { setMaxListeners } from "node:events";
import { join, resolve } from "node:path";
import { ReadFileState } from "./read-file-state.js";
import type {
  AgentContext,
  PermissionContext,
  PermissionMode,
  PermissionRule,
  SessionState,
  Tool,
  ToolUseContext,
} from "./types.js";

export interface CreateContextOptions {
  cwd: string;
  tools?: readonly Tool[];
  permissionMode?: PermissionMode;
  /** Parsed rules (see `parseRuleLists`). */
  rules?: readonly PermissionRule[];
  additionalDirectories?: readonly string[];
  sessionId?: string;
  /** Where session files go; default `<tmpdir>/armature-<sessionId>`. */
  sessionDir?: string;
  /** The host keeps the session's state for another process (see SessionState.resumable). */
  resumable?: boolean;
  env?: Record<string, string>;
  model?: string;
  debug?: boolean;
  /** A human or host answers approvals and questions (default false). */
  canAskUser?: boolean;
  signal?: AbortSignal;
}

/** A fresh context for a main agent. */
export function createToolUseContext(options: CreateContextOptions): ToolUseContext {
  const id = options.sessionId ?? randomUUID();
  const cwd = resolve(options.cwd);
  const abortController = new AbortController();
  setMaxListeners(0, abortController.signal);
  if (options.signal) linkAbort(options.signal, abortController);
  const session: SessionState = {
    id,
    dir: options.sessionDir ?? join(tmpdir(), `armature-${id}`),
    env: { ...(options.env ?? {}) },
    cleanups: new Set(),
    ...(options.resumable === true ? { resumable: true } : {}),
  };
  const permissionContext: PermissionContext = {
    mode: options.permissionMode ?? "default",
    rules: options.rules ?? [],
    additionalDirectories: (options.additionalDirectories ?? []).map((d) => resolve(cwd, d)),
  };
  return {
    options: {
      tools: options.tools ?? [],
      loadedDeferredTools: new Set(),
      mcpClients: new Map(),
      model: options.model,
      debug: options.debug ?? false,
      canAskUser: options.canAskUser ?? false,
    },
    abortController,
    readFileState: new ReadFileState(),
    messages: [],
    workspace: { projectDir: cwd, cwd },
    permissionContext,
    agent: { depth: 0 },
    session,
    denials: { count: 0, recent: [] },
    extensions: new Map(),
  };
}

export interface SubagentOverrides {
  agentId?: string;
  tools?: readonly Tool[];
  permissionMode?: PermissionMode;
  cwd?: string;
  model?: string;
  /** Share the parent's abort controller instead of a child one (a synchronous sub-agent the user interrupts with its parent). */
  shareAbortController?: boolean;
  /** Hang the child's controller off this one instead of the parent's (a background sub-agent outlives the turn). */
  parentController?: AbortController;
  /**
   * The project directory the child's relative rules and working directories are anchored at,
   * when it works somewhere else (its own worktree). Default: the parent's.
   */
  projectDir?: string;
}

/**
 * The context of a sub-agent. Each member is a deliberate choice between sharing with the
 * parent and starting fresh.
 */
export function createSubagentContext(parent: ToolUseContext, overrides: SubagentOverrides = {}): ToolUseContext {
  // Abort: a child controller. Aborting the parent aborts the child; a child that is aborted
  // (its own timeout, a failed sibling) does not take the parent down with it.
  const abortController = overrides.shareAbortController
    ? parent.abortController
    : childAbortController(overrides.parentController ?? parent.abortController);
  const agent: AgentContext = {
    agentId: overrides.agentId ?? randomUUID(),
    parentAgentId: parent.agent.agentId,
    depth: parent.agent.depth + 1,
  };
  return {
    // Options: the tool pool may be narrowed for the sub-agent; MCP clients are shared (one
    // connection per server per session); loaded deferred tools start empty because the
    // sub-agent has its own conversation and has loaded nothing yet.
    options: {
      ...parent.options,
      tools: overrides.tools ?? parent.options.tools,
      loadedDeferredTools: new Set(),
      model: overrides.model ?? parent.options.model,
    },
    abortController,
    // Read-file state: a copy. The sub-agent may edit files the parent read, without first
    // reading them again, but its reads do not vouch for the parent (which has not seen them).
    readFileState: parent.readFileState.clone(),
    // Messages: fresh. A sub-agent has its own conversation.
    messages: [],
    // Workspace: a copy, so a `cd` inside the sub-agent does not move the parent's shell.
    // A child that works elsewhere (its own worktree) has its rules anchored there, not at the parent's project.
    workspace: {
      projectDir: overrides.projectDir !== undefined ? resolve(overrides.projectDir) : parent.workspace.projectDir,
      cwd: overrides.cwd ?? (overrides.projectDir !== undefined ? resolve(overrides.projectDir) : parent.workspace.cwd),
    },
    // Permissions: the same rules; the mode may be changed (e.g. `bubble` to send asks to the
    // parent), but never to something more permissive than the parent's bypass state.
    permissionContext: {
      ...parent.permissionContext,
      mode: narrowMode(parent.permissionContext.mode, overrides.permissionMode),
    },
    agent,
    // Session: shared. Same session id, files, env and clean-ups: background work a sub-agent
    // starts still ends when the session closes.
    session: parent.session,
    // Denials: fresh tracking, so a sub-agent's denials do not push the parent into fallbacks.
    denials: { count: 0, recent: [] },
    // Extensions: shared registry (background tasks are per session, not per agent).
    extensions: parent.extensions,
  };
}

/** A sub-agent never gains `bypassPermissions` its parent does not have. */
function narrowMode(parentMode: PermissionMode, requested: PermissionMode | undefined): PermissionMode {
  if (requested === undefined) return parentMode;
  if (requested === "bypassPermissions" && parentMode !== "bypassPermissions") return parentMode;
  return requested;
}

/**
 * A controller that aborts when `parent` does. Call `release(child)` when the child's work is
 * done, so a long-lived parent does not collect one listener per finished child.
 */
export function childAbortController(parent: AbortController): AbortController {
  const child = new AbortController();
  // Many calls of one turn listen to the same signal at once; that is by design, not a leak.
  setMaxListeners(0, child.signal);
  const unlink = linkAbort(parent.signal, child);
  releasers.set(child, unlink);
  return child;
}

const releasers = new WeakMap<AbortController, () => void>();

/** Detaches a child controller from its parent (it can still be aborted on its own). */
export function releaseAbortController(child: AbortController): void {
  releasers.get(child)?.();
  releasers.delete(child);
}

/**
 * Abort `target` when `source` aborts, without keeping `target` alive after it is done.
 * Returns a function that removes the link.
 */
export function linkAbort(source: AbortSignal, target: AbortController): () => void {
  if (source.aborted) {
    target.abort(source.reason);
    return () => {};
  }
  const weak = new WeakRef(target);
  const onAbort = (): void => {
    weak.deref()?.abort(source.reason);
  };
  // Removes both listeners: a target linked again later (a kept turn controller) carries none of this link.
  const unlink = (): void => {
    source.removeEventListener("abort", onAbort);
    target.signal.removeEventListener("abort", unlink);
  };
  source.addEventListener("abort", onAbort, { once: true });
  target.signal.addEventListener("abort", unlink, { once: true });
  return unlink;
}
