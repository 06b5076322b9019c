// `armature gc`: removes session folders that `exec` kept in the temp dir because their results
// named files in them (large outputs saved to disk, background task output); with --worktrees,
// also the worktrees resumable sessions left locked that hold no work (src/worktrees/sweep.ts).
import { readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { LOCK_FILE, removeStaleLock } from "../session/state-dir.js";
import { removeStaleTempsUnder } from "../fs/temp-name.js";
import { projectSessionsDir, userConfigDir } from "../session/session-home.js";
import { recoverPendingCalls } from "../sandbox/remove-created.js";
import { sweepWorktrees, type SweptWorktree } from "../worktrees/sweep.js";
import { UsageError, type CliIO } from "./io.js";

const PREFIX = "armature-exec-";
const DEFAULT_DAYS = 7;

/** The name of the temp session folder of an `exec` run without `--session-dir`. */
export function tempSessionDir(sessionId: string): string {
  return `${PREFIX}${sessionId}`;
}

export const TEMP_HELP = `Temp state: without --session-dir the session's files go to $TMPDIR/${PREFIX}<id>/ (${tmpdir()}).
The folder is removed on exit, unless a result names a file in it (a large output saved to disk,
a background task's output): then it is kept so the caller can still read the file, and stderr
says so. 'armature gc' removes such folders older than ${DEFAULT_DAYS} days.`;

export const GC_HELP = `Usage: armature gc [options]

Removes the session folders that 'armature exec' kept in the temp dir (${join(tmpdir(), `${PREFIX}*`)})
because its results named files in them. Folders of a running exec (locked) are left alone;
folders given with --session-dir are yours and never touched. The lock of a folder kept whose
process is gone is removed.

Options:
  --older-than DAYS   only folders not modified for this many days (default ${DEFAULT_DAYS}; 0 = all)
  --dry-run           print what would be removed, remove nothing
  --dir DIR           look in DIR instead of the temp dir
  --temp-files DIR    also remove the temp files writes left beside their targets when their
                      process died (.NAME.PID-XXXXXXXXXXXX.armature-tmp) in DIR and below, and
                      finish what a write in place left (.armature-copy: the file gets its old
                      content back if it holds a mix of old and new)
                      (default: the current folder; .git and node_modules are skipped)
                      Always, unless --dry-run: what a sandboxed call of a process that died mid-call
                      (kill -9) created at protected paths, from the record that call left
  --worktrees         also remove the worktrees sessions made under .armature/worktrees/ of the
                      repository of --cwd and left locked for a resume, when they hold no work
                      (no uncommitted file, no commit only their branch has), their session is
                      not running, and their lock is older than --older-than; the rest are listed
                      with why they stay
  --cwd DIR           the repository for --worktrees (default: the current folder)
  --json              print what was done as one JSON object on stdout
  -h, --help          this text
`;

async function lockedByLiveProcess(dir: string): Promise<boolean> {
  try {
    const pid = Number((JSON.parse(await readFile(join(dir, LOCK_FILE), "utf8")) as { pid?: unknown }).pid);
    if (!Number.isInteger(pid) || pid <= 0) return false;
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** What `--json` prints (`worktrees` only with --worktrees). */
interface GcReport {
  root: string;
  olderThanDays: number;
  dryRun: boolean;
  folders: string[];
  staleLocks: Array<{ dir: string; pid: number }>;
  tempFiles: string[];
  /** What calls of a process that died mid-call created at protected paths, removed. */
  protectedPaths: string[];
  errors: Array<{ path: string; error: string }>;
  truncated: boolean;
  worktrees?: SweptWorktree[];
}

/**
 * Whether the session is running: its folder in the project's sessions folder (where `armature
 * agent` keeps it) is locked by a live process. A session kept elsewhere (`--session-dir`) is not
 * found here; the lock's age is what keeps its worktree then.
 */
async function sessionRunning(cwd: string, sessionId: string): Promise<boolean> {
  return lockedByLiveProcess(join(projectSessionsDir(cwd), sessionId));
}

export async function gcCommand(argv: string[], io: CliIO): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      "older-than": { type: "string" },
      "dry-run": { type: "boolean" },
      dir: { type: "string" },
      "temp-files": { type: "string" },
      worktrees: { type: "boolean" },
      cwd: { type: "string" },
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    io.stdout.write(GC_HELP);
    return 0;
  }
  const days = values["older-than"] === undefined ? DEFAULT_DAYS : Number(values["older-than"]);
  if (!Number.isFinite(days) || days < 0) throw new UsageError(`--older-than must be a number of days ≥ 0; got ${JSON.stringify(values["older-than"])}`);
  const root = values.dir ?? tmpdir();
  let names: string[];
  try {
    names = await readdir(root);
  } catch (err) {
    throw new UsageError(`--dir: cannot list ${root}: ${(err as Error).message}`);
  }
  const cutoff = Date.now() - days * 86_400_000;
  const dryRun = values["dry-run"] === true;
  const done = (what: string): string => `${dryRun ? "would remove" : "removed"} ${what}`;
  // What --json prints; without it each line goes out as it happens.
  const report: GcReport = { root, olderThanDays: days, dryRun, folders: [], staleLocks: [], tempFiles: [], protectedPaths: [], errors: [], truncated: false };
  const say = (line: string): void => {
    if (!values.json) io.stdout.write(`${line}\n`);
  };
  // First: what calls of a process that died mid-call created at protected paths (sandbox/remove-created.ts).
  if (!dryRun) {
    report.protectedPaths = recoverPendingCalls(join(userConfigDir(), "pending-calls"));
    for (const path of report.protectedPaths) say(`removed ${path} (created at a protected path by a call whose armature died)`);
  }
  for (const name of names.filter((n) => n.startsWith(PREFIX)).sort()) {
    const dir = join(root, name);
    try {
      const info = await stat(dir);
      if (!info.isDirectory()) continue;
      if (info.mtimeMs > cutoff) {
        const pid = dryRun ? undefined : removeStaleLock(dir);
        if (pid !== undefined) {
          report.staleLocks.push({ dir, pid });
          say(`removed the stale lock of pid ${pid} in ${dir}`);
        }
        continue;
      }
      if (await lockedByLiveProcess(dir)) continue;
      if (!dryRun) await rm(dir, { recursive: true, force: true });
      report.folders.push(dir);
      say(done(dir));
    } catch (err) {
      report.errors.push({ path: dir, error: (err as Error).message });
      if (!values.json) io.stderr.write(`armature: cannot remove ${dir}: ${(err as Error).message}\n`);
    }
  }
  if (report.folders.length === 0 && !values.json) io.stderr.write(`armature: no session folders older than ${days} days in ${root}\n`);
  const tree = values["temp-files"] ?? process.cwd();
  const temps = await removeStaleTempsUnder(tree, { dryRun });
  report.tempFiles = temps.removed;
  report.truncated = temps.truncated;
  for (const path of temps.removed) say(done(path));
  if (values.worktrees === true) {
    const cwd = resolve(values.cwd ?? process.cwd());
    try {
      report.worktrees = await sweepWorktrees(cwd, { olderThanMs: days * 86_400_000, dryRun, sessionRunning: (id) => sessionRunning(cwd, id) });
    } catch (err) {
      throw new UsageError(`--worktrees: ${(err as Error).message}`);
    }
    for (const w of report.worktrees ?? []) say(w.action === "removed" ? done(`the worktree ${w.path} (branch ${w.branch}) of session ${w.session}`) : `kept the worktree ${w.path} of session ${w.session}: ${w.why}`);
  }
  if (values.json) io.stdout.write(`${JSON.stringify(report)}\n`);
  else if (temps.truncated) io.stderr.write(`armature: ${tree} has more folders than one sweep looks at (20,000); give --temp-files a folder below it\n`);
  return 0;
}
