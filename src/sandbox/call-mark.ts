// What keeps a call's processes findable outside the sandbox, where no PID namespace holds them:
// a random mark in the environment every process of the call inherits. setsid, nohup and double
// forks leave the process group and lose their parent; they keep their environment. A /proc scan
// for the mark finds them at the end of the call, and a watchdog that outlives a kill -9 of
// armature finds them then.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import type { Writable } from "node:stream";

export const CALL_MARK_VARIABLE = "ARMATURE_CALL_MARK";

/** This process's part of every mark: the watchdog kills what carries it once armature is gone. */
const PROCESS_TOKEN = randomBytes(12).toString("hex");

/** A fresh mark for one call (the value of ARMATURE_CALL_MARK). */
export function newCallMark(): string {
  return `${PROCESS_TOKEN}.${randomBytes(8).toString("hex")}`;
}

const HAS_PROC = (() => {
  try {
    readdirSync("/proc/self/fd");
    return true;
  } catch {
    return false;
  }
})();

/**
 * Live processes whose environment holds `ARMATURE_CALL_MARK=<prefix>…` (only this user's are
 * readable, which are the only ones a call can start). Empty where there is no /proc.
 */
export function processesMarked(prefix: string, existedBefore?: ReadonlySet<number>): number[] {
  if (!HAS_PROC) return [];
  const needle = Buffer.from(`\0${CALL_MARK_VARIABLE}=${prefix}`);
  const first = Buffer.from(`${CALL_MARK_VARIABLE}=${prefix}`);
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    const c = name.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    const pid = Number(name);
    if (pid === process.pid || existedBefore?.has(pid)) continue;
    let environ: Buffer;
    try {
      environ = readFileSync(`/proc/${name}/environ`);
    } catch {
      continue;
    }
    if (environ.length === 0) continue; // a zombie, or a kernel thread
    if (environ.indexOf(needle) >= 0 || environ.subarray(0, first.length).equals(first)) out.push(pid);
  }
  return out;
}

/**
 * The processes that exist now. A call's processes are all started after it, so the scan at its
 * end reads the environment only of processes this set does not hold: a few, not the machine's
 * hundreds. (A pid reused within one call — a wrap of pid_max meanwhile — would be missed by that
 * scan; the watchdog's scan at exit reads them all.)
 */
export function pidsNow(): Set<number> {
  const out = new Set<number>();
  if (!HAS_PROC) return out;
  for (const name of readdirSync("/proc")) {
    const c = name.charCodeAt(0);
    if (c >= 48 && c <= 57) out.add(Number(name));
  }
  return out;
}

/** A call's mark with the processes that existed before it started. */
export interface CallScope {
  mark: string;
  before: ReadonlySet<number>;
}

/**
 * The watchdog: a small shell, outside every call's process group and without the mark, that
 * waits for its stdin to close (armature exited, however: exit, crash, kill -9) and then kills
 * every process carrying this process's mark. Started once, on the first call that needs it.
 */
let watchdog: Writable | undefined;

const WATCHDOG_SCRIPT = `
IFS= read -r _ || :
for round in 1 2 3 4 5; do
  found=
  for d in /proc/[0-9]*; do
    p=\${d#/proc/}
    [ "$p" = "$$" ] && continue
    while IFS= read -r -d '' kv; do
      case $kv in "${CALL_MARK_VARIABLE}=$1".*) kill -KILL "$p" 2>/dev/null; found=1; break;; esac
    done < "$d/environ" 2>/dev/null
  done
  [ -z "$found" ] && break
done
`;

export function ensureWatchdog(bash = "bash"): void {
  if (watchdog || !HAS_PROC) return;
  try {
    const child = spawn(bash, ["-c", WATCHDOG_SCRIPT, "armature-watchdog", PROCESS_TOKEN], {
      detached: true,
      stdio: ["pipe", "ignore", "ignore"],
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LC_ALL: "C" },
    });
    child.on("error", () => {
      watchdog = undefined;
    });
    child.unref();
    const stdin = child.stdin;
    // The pipe must not keep this process alive; its closing is the message.
    (stdin as unknown as { unref?: () => void }).unref?.();
    (stdin as unknown as { _handle?: { unref?: () => void } })._handle?.unref?.();
    stdin.on("error", () => {});
    watchdog = stdin;
  } catch {
    watchdog = undefined;
  }
}
