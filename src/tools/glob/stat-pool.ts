import * as fs from "node:fs";
import { availableParallelism } from "node:os";
import type { Worker } from "node:worker_threads";

/** What a path turned out to be when it was stat'ed. */
export const PathKind = { Gone: 0, File: 1, Symlink: 2, Directory: 3 } as const;
export type PathKind = (typeof PathKind)[keyof typeof PathKind];

/**
 * The paths added, and by index each one's kind and modification time: a plain file's own; a
 * symlink's target's, or the link's own when it dangles or loops (a symlink to a folder is a
 * Directory).
 */
export interface PathStamps {
  paths: string[];
  kinds: Uint8Array;
  mtimes: Float64Array;
  /** How many paths helper threads stat'ed (the rest: the calling thread). */
  byHelpers: number;
}

/**
 * Stats paths while a crawl is still finding them. A stat is a system call (several
 * microseconds each in a VM), so the tens of thousands a large Glob needs dominate its time.
 * Paths are grouped in batches as they come; once a crawl has found STAT_HELPERS_FROM, helper
 * threads (one per spare core, up to 3) stat full batches while the crawl goes on. `finish`
 * stats what is left on the calling thread, taking batches from the end while helpers take them
 * from the front. Without spare cores, or below that many paths, all runs here.
 *
 * The helpers are started after the first call that had that many paths, and kept (unreferenced)
 * for later calls: starting one costs the calling thread 10-20 ms and the machine about 50 ms of
 * CPU, which a single Glob (say, a one-turn `exec`) would pay without gaining much.
 */
export interface Stamper {
  add(path: string): void;
  finish(signal: AbortSignal): Promise<PathStamps>;
  /** Stops handing out batches (the crawl failed or was aborted). */
  cancel(): void;
}

/** From this many paths on, helper threads share the stats. */
export const STAT_HELPERS_FROM = 2_048;
/** Paths per unit of work. */
const BATCH = 512;
/**
 * Batches a helper holds at once: one being stat'ed, one waiting, so it never idles on a round
 * trip. A waiting one is taken back by the calling thread when it runs out of work (see `claim`).
 */
const PER_HELPER = 2;
/** Longest stretch the calling thread stats without giving the event loop a turn. */
const SLICE_MS = 8;

const Pending = 0;
const Sent = 1;
const Done = 2;

export function createStamper(): Stamper {
  const paths: string[] = [];
  /** Per batch: Pending, Sent (to a helper) or Done; the claim cell of the Sent ones; the results of the Done ones. */
  const state: number[] = [];
  const claims: Array<Int32Array | undefined> = [];
  const results: Array<{ kinds: Uint8Array; mtimes: Float64Array } | undefined> = [];
  let front = 0; // the first batch not yet handed out from the front
  let ended = false;
  let cancelled = false;
  let pool: StatPool | undefined;
  let byHelpers = 0;
  let wakeFinisher: (() => void) | undefined;

  const full = (b: number): boolean => ended || (b + 1) * BATCH <= paths.length;
  const batchPaths = (b: number): string[] => paths.slice(b * BATCH, (b + 1) * BATCH);

  const owner: BatchOwner = {
    done(b, answer) {
      if (state[b] === Sent && answer) {
        state[b] = Done;
        results[b] = answer;
        byHelpers += answer.kinds.length;
      }
      feed();
      wakeFinisher?.();
    },
    lost(b) {
      if (state[b] === Sent) state[b] = Pending; // done here instead
      wakeFinisher?.();
    },
  };

  /** Hands full pending batches, from the front, to helpers with room. */
  function feed(): void {
    if (!pool || cancelled) return;
    while (front < state.length && state[front] !== Pending) front++;
    while (front < state.length && full(front)) {
      const claim = new Int32Array(new SharedArrayBuffer(4));
      if (!pool.send(front, batchPaths(front).join("\0"), claim, owner)) break;
      state[front] = Sent;
      claims[front] = claim;
      front++;
    }
  }

  /** The last batch nobody has started: a pending one, or one a helper has not begun yet (taken back). */
  function takeLast(): number {
    for (let b = state.length - 1; b >= 0; b--) if (state[b] === Pending) return b;
    for (let b = state.length - 1; b >= 0; b--) if (state[b] === Sent && claim(claims[b]!, CLAIMED_BY_CALLER)) return b;
    return -1;
  }

  return {
    add(path) {
      paths.push(path);
      if (paths.length % BATCH === 1) {
        state.push(Pending);
        results.push(undefined);
      }
      if (paths.length % BATCH !== 0) return;
      if (!pool && paths.length >= STAT_HELPERS_FROM) pool = sharedPool ?? undefined;
      feed();
    },

    async finish(signal) {
      ended = true;
      feed(); // the last, partial batch
      let sliceStart = performance.now();
      try {
        for (;;) {
          const b = takeLast();
          if (b < 0) {
            if (state.every((x) => x === Done)) break;
            // Woken by a helper's answer or death, or by the abort.
            await new Promise<void>((resolve) => {
              wakeFinisher = () => resolve();
              signal.addEventListener("abort", wakeFinisher, { once: true });
            });
            signal.removeEventListener("abort", wakeFinisher!);
            wakeFinisher = undefined;
            signal.throwIfAborted();
            continue;
          }
          const part = batchPaths(b);
          const kinds = new Uint8Array(part.length);
          const mtimes = new Float64Array(part.length);
          statInto(fs, part, kinds, mtimes);
          state[b] = Done;
          results[b] = { kinds, mtimes };
          if (performance.now() - sliceStart > SLICE_MS) {
            await new Promise<void>((resolve) => setImmediate(resolve));
            signal.throwIfAborted();
            sliceStart = performance.now();
          }
        }
      } catch (err) {
        cancelled = true;
        throw err;
      }
      if (paths.length >= STAT_HELPERS_FROM && sharedPool === undefined) startTimer ??= setTimeout(() => void startStatHelpers(), 0).unref();
      const kinds = new Uint8Array(paths.length);
      const mtimes = new Float64Array(paths.length);
      results.forEach((r, b) => {
        kinds.set(r!.kinds, b * BATCH);
        mtimes.set(r!.mtimes, b * BATCH);
      });
      return { paths, kinds, mtimes, byHelpers };
    },

    cancel() {
      cancelled = true;
    },
  };
}

/** A batch sent to a helper is done by whoever claims it first: the helper when it begins it, or the caller. */
const CLAIMED_BY_HELPER = 1;
const CLAIMED_BY_CALLER = 2;

function claim(cell: Int32Array, by: number): boolean {
  return Atomics.compareExchange(cell, 0, 0, by) === 0;
}

/**
 * Stats each path into `kinds`/`mtimes`. It runs on helper threads too, sent as source text:
 * it must use only its parameters (the kind codes are PathKind's, written out).
 */
function statInto(fsm: Pick<typeof fs, "lstatSync" | "statSync">, paths: readonly string[], kinds: Uint8Array, mtimes: Float64Array): void {
  for (let i = 0; i < paths.length; i++) {
    let own: fs.Stats | undefined;
    try {
      own = fsm.lstatSync(paths[i]!, { throwIfNoEntry: false });
    } catch {
      own = undefined; // no permission, a folder on the way replaced by a file: as if gone
    }
    if (own === undefined) {
      kinds[i] = 0;
    } else if (own.isSymbolicLink()) {
      let target: fs.Stats | undefined;
      try {
        target = fsm.statSync(paths[i]!, { throwIfNoEntry: false });
      } catch {
        target = undefined; // a loop (ELOOP) or an unreadable target: listed as the link itself
      }
      kinds[i] = target?.isDirectory() ? 3 : 2;
      mtimes[i] = (target ?? own).mtimeMs;
    } else {
      kinds[i] = own.isDirectory() ? 3 : 1;
      mtimes[i] = own.mtimeMs;
    }
  }
}

/** A helper's program: stats each batch it is sent and sends the results back. */
const WORKER_SOURCE = `"use strict";
const fs = require("node:fs");
const { parentPort } = require("node:worker_threads");
const statInto = ${statInto.toString()};
parentPort.on("message", ({ id, joined, claim }) => {
  if (Atomics.compareExchange(claim, 0, 0, ${CLAIMED_BY_HELPER}) !== 0) return parentPort.postMessage({ id });
  const paths = joined.split("\\0");
  const kinds = new Uint8Array(paths.length);
  const mtimes = new Float64Array(paths.length);
  statInto(fs, paths, kinds, mtimes);
  parentPort.postMessage({ id, kinds, mtimes }, [kinds.buffer, mtimes.buffer]);
});
`;

/** Who gets a batch's results back: `lost` when its helper died before answering. */
interface BatchOwner {
  /** `answer` is missing when the caller took the batch back before the helper began it. */
  done(batch: number, answer: { kinds: Uint8Array; mtimes: Float64Array } | undefined): void;
  lost(batch: number): void;
}

interface StatPool {
  /** Sends a batch to a helper with room; false when every helper is busy (or none is running yet). */
  send(batch: number, joined: string, claim: Int32Array, owner: BatchOwner): boolean;
  stop(): Promise<void>;
}

/** undefined: not started; null: helpers cannot run in this process. */
let sharedPool: StatPool | null | undefined;
let starting: Promise<unknown> | undefined;
let startTimer: NodeJS.Timeout | undefined;

/**
 * Stops the helper threads (they are unreferenced, so a process exits without this). Batches they
 * hold are done by their callers. A later large Glob starts new ones.
 */
export async function stopStatHelpers(): Promise<void> {
  clearTimeout(startTimer);
  startTimer = undefined;
  await starting;
  const pool = sharedPool;
  sharedPool = undefined;
  await pool?.stop();
}

/**
 * Starts the helper threads (worker_threads is loaded only then); resolves to whether they run.
 * A large Glob calls it once it is done; a host may call it earlier to have them ready.
 */
export function startStatHelpers(): Promise<boolean> {
  clearTimeout(startTimer);
  startTimer = undefined;
  if (sharedPool !== undefined) return Promise.resolve(sharedPool !== null);
  const helpers = Math.min(availableParallelism() - 1, 3);
  if (helpers < 1) {
    sharedPool = null;
    return Promise.resolve(false);
  }
  starting ??= import("node:worker_threads")
    .then(({ Worker }) => (sharedPool = createStatPool(Worker, helpers)))
    .catch(() => (sharedPool = null))
    .finally(() => (starting = undefined));
  return starting.then(() => sharedPool != null);
}

interface Helper {
  worker: Worker;
  /** Batches out, by message id. */
  out: Map<number, { batch: number; owner: BatchOwner }>;
}

function createStatPool(WorkerCtor: typeof Worker, count: number): StatPool {
  const helpers: Helper[] = [];
  let nextId = 0;
  for (let i = 0; i < count; i++) {
    const helper: Helper = { worker: new WorkerCtor(WORKER_SOURCE, { eval: true, name: "armature-glob-stat" }), out: new Map() };
    helper.worker.on("message", (msg: { id: number; kinds?: Uint8Array; mtimes?: Float64Array }) => {
      const entry = helper.out.get(msg.id);
      if (!entry) return;
      helper.out.delete(msg.id);
      // Referenced only while it holds work, so that a caller waiting for it keeps the process alive.
      if (helper.out.size === 0) helper.worker.unref();
      entry.owner.done(entry.batch, msg.kinds && msg.mtimes && { kinds: msg.kinds, mtimes: msg.mtimes });
    });
    const died = (): void => {
      const at = helpers.indexOf(helper);
      if (at < 0) return;
      helpers.splice(at, 1);
      if (helpers.length === 0 && sharedPool === pool) sharedPool = null; // later calls stat on their own thread
      for (const { batch, owner } of helper.out.values()) owner.lost(batch);
      helper.out.clear();
    };
    helper.worker.on("error", died);
    helper.worker.on("exit", died);
    // After the listeners: adding a "message" listener refs a worker again, and a referenced idle
    // helper keeps a finished process (a one-turn `exec`, `mcp serve` at end of input) alive.
    helper.worker.unref();
    helpers.push(helper);
  }
  const pool: StatPool = {
    send(batch, joined, claim, owner) {
      let target: Helper | undefined;
      for (const h of helpers) if (h.out.size < PER_HELPER && (!target || h.out.size < target.out.size)) target = h;
      if (!target) return false;
      const id = nextId++;
      if (target.out.size === 0) target.worker.ref();
      target.out.set(id, { batch, owner });
      target.worker.postMessage({ id, joined, claim });
      return true;
    },
    async stop() {
      await Promise.all(helpers.map((h) => h.worker.terminate()));
    },
  };
  return pool;
}
