import { randomInt } from "node:crypto";
import { outsideProjectReason } from "../settings/project-inputs.js";
import { mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { gitRead, gitWrite, mainCheckout } from "./git.js";

/** Where worktrees go, relative to the main checkout (the reference keeps its own under `.claude/worktrees`). */
export const WORKTREES_DIR = join(".armature", "worktrees");

/** A worktree this session made or entered. */
export interface Worktree {
  path: string;
  branch: string;
  /** The commit it started from: commits after it are work a removal would lose. */
  base: string;
  /** The main checkout. */
  root: string;
}

/**
 * A worktree name: "/"-separated segments of letters, digits, dots, underscores and dashes. `.`,
 * `..` and `.git` are refused too: a name must not leave the worktrees folder or make a git dir.
 */
export function validWorktreeName(name: string): boolean {
  return name.split("/").every((seg) => /^[A-Za-z0-9._-]+$/.test(seg) && seg !== "." && seg !== ".." && seg.toLowerCase() !== ".git");
}

export function invalidNameMessage(name: string): string {
  // Our words: the reference's sentence repeats its description.
  return `Invalid worktree name ${JSON.stringify(name)}: split at "/", every part needs at least one character, and the characters allowed are letters, digits, ".", "_" and "-" (a part may not be ".", ".." or ".git")`;
}

const ADJECTIVES = ["dazzling", "quiet", "brisk", "amber", "gentle", "lucky", "nimble", "sunny", "steady", "velvet", "misty", "bold"];
const VERBS = ["percolating", "drifting", "humming", "wandering", "glowing", "folding", "spinning", "rolling", "weaving", "sparking", "soaring", "ticking"];
const NOUNS = ["crystal", "harbor", "meadow", "lantern", "pebble", "comet", "orchard", "falcon", "canyon", "ember", "willow", "beacon"];

/** Three words, as the reference names a worktree it was not given a name for. */
export function randomWorktreeName(): string {
  const pick = (words: readonly string[]): string => words[randomInt(words.length)]!;
  return `${pick(ADJECTIVES)}-${pick(VERBS)}-${pick(NOUNS)}`;
}

/** The thrown message for a git command that failed, with what git said. */
function gitFailure(what: string, stderr: string): Error {
  return new Error(`${what}: ${stderr.trim() || "git failed"}`);
}

/** Creates `<main checkout>/.armature/worktrees/<name>` on a new branch `worktree-<name>` from HEAD, locked while in use. */
export async function createWorktree(cwd: string, name: string, lockReason: string): Promise<Worktree> {
  const root = await mainCheckout(cwd);
  if (root === undefined) throw new Error("Cannot create a worktree: not in a git repository. EnterWorktree and isolation: \"worktree\" work inside a git repository only.");
  const head = await gitRead(["rev-parse", "HEAD"], cwd);
  if (head.code !== 0) throw gitFailure("Cannot create a worktree: the repository has no commit yet", head.stderr);
  const path = join(root, WORKTREES_DIR, name);
  // A shipped `.armature/worktrees -> ~/.vim/pack/…` would check the repository out there.
  const outside = outsideProjectReason(root, join(WORKTREES_DIR, name));
  if (outside !== undefined) throw new Error(`Cannot create a worktree: ${outside}. Remove the link, or ask the user where to work.`);
  const branch = `worktree-${name}`;
  await mkdir(dirname(path), { recursive: true });
  const added = await gitWrite(["worktree", "add", "--quiet", "-b", branch, path, head.stdout.trim()], root);
  if (added.code !== 0) throw gitFailure("Cannot create a worktree", added.stderr);
  await gitWrite(["worktree", "lock", "--reason", lockReason, path], root);
  return { path, branch, base: head.stdout.trim(), root };
}

/** The worktrees of the repository `cwd` is in: path → branch (short name, or "" when detached). */
export async function listWorktrees(cwd: string): Promise<Map<string, string>> {
  const out = await gitRead(["worktree", "list", "--porcelain"], cwd);
  const trees = new Map<string, string>();
  let current: string | undefined;
  for (const line of out.stdout.split("\n")) {
    if (line.startsWith("worktree ")) trees.set((current = line.slice(9)), "");
    else if (line.startsWith("branch ") && current !== undefined) trees.set(current, line.slice(7).replace(/^refs\/heads\//, ""));
  }
  return trees;
}

export async function unlockWorktree(tree: Worktree): Promise<void> {
  await gitWrite(["worktree", "unlock", tree.path], tree.root);
}

/** Removes the worktree and its branch (whatever they hold: the caller has checked or been told to discard). */
export async function removeWorktree(tree: Worktree): Promise<void> {
  // Twice --force: also when locked (by this session) or with changes.
  const removed = await gitWrite(["worktree", "remove", "--force", "--force", tree.path], tree.root);
  if (removed.code !== 0) throw gitFailure(`Cannot remove the worktree at ${tree.path}`, removed.stderr);
  const deleted = await gitWrite(["branch", "-D", tree.branch], tree.root);
  if (deleted.code !== 0) throw gitFailure(`Removed the worktree at ${tree.path}, but not its branch ${tree.branch}`, deleted.stderr);
}
