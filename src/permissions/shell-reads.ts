import type { ShellReaderFacts, ShellSubcommand } from "../tool/types.js";

type RootLimit = ShellReaderFacts["limit"];

/**
 * What the engine reads of a command beyond the analysis's read targets, from the reader facts
 * the shell analysis computed for each subcommand (src/shell/reader-facts.ts): the operands of
 * directory listers (`ls ~/.ssh` reads outside the working dirs) and the roots of recursive
 * readers (`grep -r . .` reads every file below `.`, a Read-denied one too).
 */
export interface ShellReads {
  reads: string[];
  /** Directories read with everything below them. */
  recursiveRoots: string[];
  /**
   * Recursive roots read through the symlinks below them (`grep -R`, `rg -L`, `find -L`,
   * `cp -rL`, `tar -h`, `zip -r`, `diff -r`…): a link in the tree is a read of where it points.
   */
  followingRoots: string[];
  /** What each recursive root's readers read below it: `all` unless every one of them reads less. */
  rootLimits: Map<string, RootLimit>;
}

export function derivedShellReads(subs: readonly ShellSubcommand[]): ShellReads {
  const reads: string[] = [];
  const roots: string[] = [];
  const following: string[] = [];
  const limits = new Map<string, RootLimit>();
  for (const sub of subs) {
    const r = sub.reader;
    if (!r) continue;
    reads.push(...r.listed);
    roots.push(...r.recursive);
    if (r.follows) following.push(...r.recursive);
    for (const root of r.recursive) limits.set(root, limits.has(root) && limits.get(root) !== r.limit ? "all" : r.limit);
  }
  return { reads, recursiveRoots: roots, followingRoots: following, rootLimits: limits };
}
