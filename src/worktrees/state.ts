// The worktree an agent works in, kept in the context's extensions (shared with sub-agents, each
// agent under its own key). The worktree tools set it; the session snapshot saves and restores it.
import type { ToolUseContext } from "../tool/types.js";
import { commitsSince, uncommittedFiles } from "./git.js";
import { removeWorktree, unlockWorktree, type Worktree } from "./worktree.js";

/** The worktree an agent is in: what it made (or entered), and where it came from. */
export interface WorktreeState {
  tree: Worktree;
  /** Made by EnterWorktree (ExitWorktree may remove it); false: entered with `path`. */
  created: boolean;
  back: { projectDir: string; cwd: string };
}

const STATE_KEY = "armature.worktree";
const keyOf = (context: ToolUseContext): string => `${STATE_KEY}:${context.agent.agentId ?? "main"}`;

export function activeWorktree(context: ToolUseContext): WorktreeState | undefined {
  return context.extensions.get(keyOf(context)) as WorktreeState | undefined;
}

export function setActiveWorktree(context: ToolUseContext, state: WorktreeState | undefined): void {
  if (state) context.extensions.set(keyOf(context), state);
  else context.extensions.delete(keyOf(context));
}

/** The lock reason of a worktree a session made: a restored state proves with it that it made it. */
export function worktreeLockReason(sessionId: string): string {
  return `armature session ${sessionId}`;
}

/**
 * On session close: an unchanged worktree this session made is removed; one with work stays for
 * the user, unlocked. A session whose state is kept for another process (a `sessionDir`) leaves
 * it as it is, locked: the resumed session comes back in it (`armature gc --worktrees` removes it
 * later once it holds no work and its session is gone: sweep.ts).
 */
export function cleanUpOnClose(context: ToolUseContext, state: WorktreeState): void {
  const cleanup = async (): Promise<void> => {
    if (activeWorktree(context) !== state) return;
    setActiveWorktree(context, undefined);
    if (context.session.resumable === true) return;
    try {
      const unchanged = (await uncommittedFiles(state.tree.path)) === 0 && (await commitsSince(state.tree.path, state.tree.base)) === 0;
      if (unchanged) await removeWorktree(state.tree);
      else await unlockWorktree(state.tree);
    } catch {
      // A worktree that cannot be checked is left as it is: nothing of it is lost.
    }
  };
  context.session.cleanups.add(cleanup);
}
