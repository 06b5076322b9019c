// Stopping a command and everything it started. The command runs as the leader of its own
// process group; stopping it sends SIGTERM to the group (and to descendants that left it with
// setsid), waits a grace period, then SIGKILLs whatever is left. Outside the sandbox, processes
// that left both (setsid -f, double forks) are found by the call's mark in their environment.
import { readdirSync, readFileSync } from "node:fs";
import { processesMarked, type CallScope } from "../../sandbox/call-mark.js";

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const HAS_PROC = (() => {
  try {
    readFileSync("/proc/self/stat");
    return true;
  } catch {
    return false;
  }
})();

interface ProcInfo {
  pid: number;
  ppid: number;
  pgrp: number;
  zombie: boolean;
}

function readProc(pid: number): ProcInfo | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    // The command name may hold spaces and parentheses: the fields follow the last ')'.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { pid, ppid: Number(fields[1]), pgrp: Number(fields[2]), zombie: fields[0] === "Z" || fields[0] === "X" };
  } catch {
    return undefined;
  }
}

function allProcs(): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const name of readdirSync("/proc")) {
    if (name.charCodeAt(0) < 48 || name.charCodeAt(0) > 57) continue;
    const info = readProc(Number(name));
    if (info) out.push(info);
  }
  return out;
}

/** Live (non-zombie) processes in the group, live descendants of `root` wherever they are, and what carries `mark`. */
function members(pgid: number, root: number, mark?: CallScope): number[] {
  if (!HAS_PROC) {
    try {
      process.kill(-pgid, 0);
      return [-pgid];
    } catch {
      return [];
    }
  }
  const procs = allProcs();
  const children = new Map<number, number[]>();
  for (const p of procs) {
    const list = children.get(p.ppid);
    if (list) list.push(p.pid);
    else children.set(p.ppid, [p.pid]);
  }
  const found = new Set<number>();
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    for (const child of children.get(pid) ?? []) {
      if (!found.has(child)) {
        found.add(child);
        stack.push(child);
      }
    }
  }
  const marked = new Set(mark === undefined ? [] : processesMarked(mark.mark, mark.before));
  const live = new Set<number>();
  for (const p of procs) {
    if (p.zombie) continue;
    if (p.pgrp === pgid || found.has(p.pid) || marked.has(p.pid)) live.add(p.pid);
  }
  return [...live];
}

/**
 * Whether anything of the group still runs, once its leader has exited (its other descendants
 * were re-parented then, so the group is what is left to find). The common case, an empty
 * group, costs one system call; /proc is read only to tell live members from unreaped zombies.
 */
export async function groupAlive(pgid: number, mark?: CallScope): Promise<boolean> {
  // Members that are still exiting (a sandbox's PID-namespace init tearing down) get a moment.
  for (let attempt = 0; attempt < 10; attempt++) {
    let groupEmpty = false;
    try {
      process.kill(-pgid, 0);
    } catch {
      groupEmpty = true;
    }
    if (groupEmpty && (mark === undefined || processesMarked(mark.mark, mark.before).length === 0)) return false;
    if (members(pgid, pgid, mark).length === 0) return false;
    await sleep(5);
  }
  return true;
}

function signal(pids: readonly number[], pgid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pgid, sig);
  } catch {
    // the group is empty
  }
  for (const pid of pids) {
    if (pid <= 0) continue;
    try {
      process.kill(pid, sig);
    } catch {
      // already gone
    }
  }
}

/**
 * SIGTERM to the group and its descendants, then SIGKILL after `graceMs` to whatever is left.
 * Resolves once nothing of it runs (or after the SIGKILL when that cannot be observed).
 */
export async function stopProcessGroup(pgid: number, graceMs: number, mark?: CallScope): Promise<void> {
  let pids = members(pgid, pgid, mark);
  if (pids.length === 0) return;
  signal(pids, pgid, "SIGTERM");
  // Monotonic: a clock set back while it waits does not stretch the grace period.
  const deadline = performance.now() + graceMs;
  while (performance.now() < deadline) {
    await sleep(Math.min(20, Math.max(1, deadline - performance.now())));
    pids = members(pgid, pgid, mark);
    if (pids.length === 0) return;
  }
  // Descendants found now, too: a process may have forked while it handled SIGTERM.
  for (let round = 0; round < 5; round++) {
    signal(members(pgid, pgid, mark), pgid, "SIGKILL");
    await sleep(10);
    if (members(pgid, pgid, mark).length === 0) return;
  }
}
