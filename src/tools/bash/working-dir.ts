import { realpathSync, statSync } from "node:fs";
import { isAbsolute, relative, sep } from "node:path";

/** Whether `path` is `dir` or below it, by path segments (`/proj-evil` is not inside `/proj`). */
export function isWithin(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === "" || (!isAbsolute(rel) && rel !== ".." && !rel.startsWith(`..${sep}`));
}

function canonical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

export interface WorkingDirs {
  projectDir: string;
  additionalDirectories: readonly string[];
}

/**
 * Whether a directory is inside one of the working directories, compared as canonical paths
 * (a symlink inside the project that points elsewhere is elsewhere).
 */
export function insideWorkingDirs(path: string, dirs: WorkingDirs): boolean {
  const real = canonical(path);
  return [dirs.projectDir, ...dirs.additionalDirectories].some((dir) => isWithin(real, canonical(dir)));
}

export interface NextCwd {
  cwd: string;
  /** Set when the shell left the working directories and was put back. */
  notice?: string;
}

/**
 * Where the next command starts: the directory the shell ended in while it is inside the
 * working directories, else the project directory (with a notice for the model).
 */
export function nextCwd(reported: string | undefined, previous: string, dirs: WorkingDirs): NextCwd {
  if (reported === undefined || !isAbsolute(reported)) return { cwd: previous };
  if (reported === previous) return { cwd: previous };
  if (!isDirectory(reported)) return { cwd: previous };
  if (insideWorkingDirs(reported, dirs)) return { cwd: reported };
  return {
    cwd: dirs.projectDir,
    notice: `Shell cwd was reset to ${dirs.projectDir} (${reported} is outside the working directories; cd there again in each command that needs it).`,
  };
}

/** The directory a command starts in: the current one, or the project dir when it has gone. */
export function startCwd(current: string, dirs: WorkingDirs): NextCwd {
  if (isDirectory(current) && insideWorkingDirs(current, dirs)) return { cwd: current };
  if (current === dirs.projectDir) return { cwd: current };
  return { cwd: dirs.projectDir, notice: `Shell cwd was reset to ${dirs.projectDir} (${current} no longer exists or is outside the working directories).` };
}
