// What stays read-only inside a writable directory, in every boundary: the permission engine's
// protected-path table (one list, read from there) with each version-control directory narrowed to
// the parts that run programs, so that `git commit` still writes objects and refs.
import { PROTECTED_DIRS, PROTECTED_FILES, PROTECTED_SEQUENCES } from "../permissions/safety.js";

/**
 * Inside a VCS directory, only what names or holds programs: git's hooks, config (and the config
 * reached through commondir, worktrees and submodules), info/ (attributes name filters), hg's hgrc.
 */
const VCS_INTERNALS: Readonly<Record<string, readonly string[]>> = {
  ".git": ["hooks", "config", "commondir", "modules", "worktrees", "info"],
  ".hg": ["hgrc"],
  ".svn": [],
};

/** Paths relative to a writable directory that the sandbox mounts read-only where they exist. */
export function protectedRelativePaths(): string[] {
  const out: string[] = [];
  for (const { name } of PROTECTED_DIRS) {
    const internals = VCS_INTERNALS[name];
    if (internals) out.push(...internals.map((part) => `${name}/${part}`));
    else out.push(name);
  }
  for (const { name } of PROTECTED_FILES) out.push(name);
  for (const { segments } of PROTECTED_SEQUENCES) out.push(segments.join("/"));
  return [...new Set(out)];
}
