export const ENTER_WORKTREE_TOOL_NAME = "EnterWorktree";
export const EXIT_WORKTREE_TOOL_NAME = "ExitWorktree";

export const ENTER_WORKTREE_DESCRIPTION = [
  "Moves this session into a separate git worktree: a second checkout of the repository on a branch of its own, so that work there leaves the user's checkout untouched.",
  "",
  "- Use it when the user asks for work in a worktree, or for changes they want kept apart from their checkout until they look at them.",
  "- Without arguments it makes a worktree with a generated name; name picks the name (letters, digits, dots, underscores, dashes; / separates folders). The branch is worktree-<name>, started from the current commit.",
  "- path enters a worktree of this repository that already exists instead of making one.",
  "- Afterwards every tool works in the worktree (the working directory and the folders you may change are its own). Leave it with ExitWorktree.",
  "- One worktree at a time: while in one, only path (switching to another existing worktree) is accepted.",
].join("\n");

export const EXIT_WORKTREE_DESCRIPTION = [
  "Leaves the worktree EnterWorktree moved this session into, and goes back to the folder the session was in before.",
  "",
  '- action "keep" leaves the worktree and its branch where they are, for the user to review or merge.',
  '- action "remove" deletes the worktree and its branch. While there is work in it (files not committed, or commits made there) it refuses and counts that work; pass discard_changes: true only after the user has agreed to lose it.',
  "- It acts only on a worktree this session entered with EnterWorktree; without one it does nothing.",
].join("\n");

export const WORKTREE_NAME_DESCRIPTION = "Name for the new worktree and its branch (worktree-<name>); generated when left out";
export const WORKTREE_PATH_DESCRIPTION = "An existing worktree of this repository to work in, instead of making a new one";
export const EXIT_ACTION_DESCRIPTION = '"keep" the worktree and its branch, or "remove" both';
export const DISCARD_CHANGES_DESCRIPTION = "With remove: delete even uncommitted files and the branch's own commits (only once the user agreed)";

export function createdText(path: string, branch: string): string {
  return `Created worktree at “${path}” on branch “${branch}”. The session is now working in the worktree. Use ExitWorktree to leave mid-session, or exit the session to be prompted.`;
}

export function enteredText(path: string, branch: string): string {
  return `Entered worktree at “${path}”${branch ? ` on branch “${branch}”` : ""}. The session is now working in the worktree. Use ExitWorktree to leave it.`;
}

export const ALREADY_IN_WORKTREE = "Already in a worktree session. Pass `path` to switch into another existing worktree, or use ExitWorktree to leave this one before creating a new worktree.";

// The reference's words here repeat its own description; these are ours (same facts).
export const NO_WORKTREE_SESSION =
  "No-op: this session is not in a worktree it entered with EnterWorktree, so there is nothing to exit. Worktrees made by hand or by an earlier session are never touched by ExitWorktree. Nothing was changed on disk.";

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

/** "1 uncommitted file", "2 commits", joined with "and". */
export function workDescription(files: number, commits: number): string {
  return [files > 0 ? plural(files, "uncommitted file", "uncommitted files") : "", commits > 0 ? plural(commits, "commit", "commits") + " not on the branch it started from" : ""].filter((s) => s !== "").join(" and ");
}

export function refuseRemovalText(work: string): string {
  return `Worktree has ${work}. Removing will discard this work permanently. Confirm with the user, then re-invoke with discard_changes: true — or use action: "keep" to preserve the worktree.`;
}

export function keptText(path: string, branch: string, back: string): string {
  return `Exited worktree. Your work is preserved at “${path}” on branch “${branch}”. Session is now back in “${back}”.`;
}

export function removedText(path: string, discarded: string, back: string): string {
  return `Exited and removed worktree at “${path}”.${discarded ? ` Discarded ${discarded}.` : ""} Session is now back in “${back}”.`;
}

export function leftWorktreeText(path: string, back: string): string {
  return `Exited worktree at “${path}” (entered with path, so it stays). Session is now back in “${back}”.`;
}
