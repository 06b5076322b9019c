import type { Dirent } from "node:fs";
import { readFile, readdir, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { matchIgnoreList, parseIgnoreFile, type IgnoreList, type OverrideMatcher } from "../../search/gitignore.js";
import { isVcsDirectory } from "../../search/paths.js";

/** The ignore files of one folder, by kind. */
interface IgnoreLevel {
  rgignore?: IgnoreList;
  ignore?: IgnoreList;
  gitignore?: IgnoreList;
  exclude?: IgnoreList;
}

/** ripgrep's precedence: `.rgignore` over `.ignore` over `.gitignore` over `.git/info/exclude`. */
const KINDS = ["rgignore", "ignore", "gitignore", "exclude"] as const;

export interface WalkOptions {
  root: string;
  /** `--glob` overrides, relative to `root`. */
  overrides: OverrideMatcher;
  /** `--type` filter on file names. */
  typeFilter?: (fileName: string) => boolean;
  signal: AbortSignal;
  /** Paths never entered nor searched (Read deny rules), checked before anything else. */
  skip?: (path: string, isDir: boolean) => boolean;
}

/**
 * The files ripgrep would search under `root`, in `--sort path` order (depth first, each
 * folder's entries by name): hidden files included, symlinks not followed, VCS folders
 * skipped, `.gitignore` applied inside git repositories (root and nested, and the ones above
 * the root up to the repository's top), `.ignore` / `.rgignore` applied everywhere.
 * A `--glob` that selects a file wins over ignore files, as in ripgrep.
 * Not read: the global git excludes file (`core.excludesFile`).
 */
export async function* walkSearchFiles(options: WalkOptions): AsyncGenerator<string> {
  const { levels, inRepo } = await ancestorLevels(options.root);
  yield* walkFolder(options.root, levels, inRepo, options);
}

async function* walkFolder(dir: string, parentLevels: IgnoreLevel[], parentInRepo: boolean, options: WalkOptions): AsyncGenerator<string> {
  options.signal.throwIfAborted();
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return; // unreadable or vanished: ripgrep skips it too
  }
  const names = new Set(entries.map((e) => e.name));
  const repoHere = names.has(".git");
  const inRepo = parentInRepo || repoHere;
  const level = await loadLevel(dir, names, inRepo, repoHere);
  const levels = level ? [...parentLevels, level] : parentLevels;
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (isVcsDirectory(entry.name) || entry.isSymbolicLink()) continue;
    const isDir = entry.isDirectory();
    if (!isDir && !entry.isFile()) continue;
    const path = join(dir, entry.name);
    if (options.skip?.(path, isDir)) continue;
    if (!selected(path, entry.name, isDir, levels, options)) continue;
    if (isDir) yield* walkFolder(path, levels, inRepo, options);
    else yield path;
  }
}

function selected(path: string, name: string, isDir: boolean, levels: readonly IgnoreLevel[], options: WalkOptions): boolean {
  const override = options.overrides.decide(path.slice(options.root.length + 1), isDir);
  if (override === "ignore") return false;
  if (override === "whitelist") return true;
  if (ignoredByLevels(levels, path, isDir)) return false;
  if (!isDir && options.typeFilter && !options.typeFilter(name)) return false;
  return true;
}

function ignoredByLevels(levels: readonly IgnoreLevel[], path: string, isDir: boolean): boolean {
  for (const kind of KINDS) {
    for (let i = levels.length - 1; i >= 0; i--) {
      const list = levels[i]![kind];
      if (!list) continue;
      const decision = matchIgnoreList(list, path, isDir);
      if (decision !== undefined) return decision === "ignore";
    }
  }
  return false;
}

const ANY_NAME: Pick<ReadonlySet<string>, "has"> = { has: () => true };

async function loadLevel(dir: string, names: Pick<ReadonlySet<string>, "has">, inRepo: boolean, repoHere: boolean): Promise<IgnoreLevel | undefined> {
  const level: IgnoreLevel = {};
  let any = false;
  const load = async (kind: (typeof KINDS)[number], file: string): Promise<void> => {
    const text = await readFile(file, "utf8").catch(() => undefined);
    if (text === undefined) return;
    level[kind] = { base: dir, rules: parseIgnoreFile(text) };
    any = true;
  };
  if (names.has(".rgignore")) await load("rgignore", join(dir, ".rgignore"));
  if (names.has(".ignore")) await load("ignore", join(dir, ".ignore"));
  if (inRepo && names.has(".gitignore")) await load("gitignore", join(dir, ".gitignore"));
  if (repoHere) await load("exclude", join(dir, ".git", "info", "exclude"));
  return any ? level : undefined;
}

/** Ignore files of the folders above the root, outermost first. */
async function ancestorLevels(root: string): Promise<{ levels: IgnoreLevel[]; inRepo: boolean }> {
  const ancestors: string[] = [];
  for (let dir = dirname(root); ; dir = dirname(dir)) {
    ancestors.unshift(dir);
    if (dirname(dir) === dir) break;
  }
  const hasGit = await Promise.all(ancestors.map((dir) => stat(join(dir, ".git")).then(() => true, () => false)));
  const repoIndex = hasGit.lastIndexOf(true);
  const levels: IgnoreLevel[] = [];
  for (let i = 0; i < ancestors.length; i++) {
    const dir = ancestors[i]!;
    // Reading a missing file just fails: no need to list big folders such as /tmp.
    const level = await loadLevel(dir, ANY_NAME, repoIndex >= 0 && i >= repoIndex, i === repoIndex);
    if (level) levels.push(level);
  }
  return { levels, inRepo: repoIndex >= 0 };
}
