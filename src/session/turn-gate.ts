/** Gives the turn's place back; safe to call twice. */
export type ReleaseTurn = () => void;

/** A place in line, taken when a turn starts, before it knows what its calls are. */
export interface TurnTicket {
  /**
   * Says whether every call of the turn is concurrency-safe and waits for the turn's time:
   * synchronously when nothing is in the way, else a promise.
   */
  admit(shared: boolean): ReleaseTurn | Promise<ReleaseTurn>;
  /** Gives the place up without running (the turn failed before it could start). */
  cancel(): void;
}

interface Waiter {
  /** Unknown until the turn has prepared its calls; a waiter not yet known holds the line. */
  shared: boolean | undefined;
  admit?: (release: ReleaseTurn) => void;
}

/**
 * The order in which turns run on one session, first come first served: a turn whose calls are
 * all concurrency-safe (reads, searches) runs beside other such turns, any other turn runs
 * alone, after the turns before it and before the turns after it. Hosts that run each tool call
 * as its own turn (the AI SDK, an MCP client) keep their parallel reads; two writing turns
 * never interleave. A turn whose signal aborts while it waits leaves the line at once (it then
 * starts nothing: its calls see the aborted signal).
 */
export class TurnGate {
  private shared = 0;
  private exclusive = false;
  private readonly line: Waiter[] = [];

  /** Takes a place in line for a turn that starts now. */
  reserve(signal: AbortSignal): TurnTicket {
    const waiter: Waiter = { shared: undefined };
    this.line.push(waiter);
    return {
      admit: (shared) => {
        waiter.shared = shared;
        if (this.line[0] === waiter && this.admissible(shared)) {
          this.line.shift();
          const release = this.take(shared);
          this.pump(); // shared turns waiting behind this one may start beside it
          return release;
        }
        if (signal.aborted) return this.leave(waiter);
        return new Promise<ReleaseTurn>((resolve) => {
          const onAbort = (): void => resolve(this.leave(waiter));
          waiter.admit = (release) => {
            signal.removeEventListener("abort", onAbort);
            resolve(release);
          };
          signal.addEventListener("abort", onAbort, { once: true });
          this.pump();
        });
      },
      cancel: () => void this.leave(waiter),
    };
  }

  /** Turns running or waiting (for tests and diagnostics). */
  get size(): number {
    return this.shared + (this.exclusive ? 1 : 0) + this.line.length;
  }

  private leave(waiter: Waiter): ReleaseTurn {
    const at = this.line.indexOf(waiter);
    if (at >= 0) this.line.splice(at, 1);
    this.pump();
    return noop;
  }

  private admissible(shared: boolean): boolean {
    return shared ? !this.exclusive : !this.exclusive && this.shared === 0;
  }

  private take(shared: boolean): ReleaseTurn {
    if (shared) this.shared++;
    else this.exclusive = true;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (shared) this.shared--;
      else this.exclusive = false;
      this.pump();
    };
  }

  private pump(): void {
    for (;;) {
      const next = this.line[0];
      if (next?.shared === undefined || next.admit === undefined || !this.admissible(next.shared)) return;
      this.line.shift();
      next.admit(this.take(next.shared));
    }
  }
}

const noop: ReleaseTurn = () => {};
