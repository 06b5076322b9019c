import type { PreparedCall } from "../pipeline/prepare.js";

export interface Batch {
  concurrent: boolean;
  calls: PreparedCall[];
}

/**
 * Consecutive calls that are concurrency-safe for their parsed input form one batch; each
 * other call (unsafe, unknown tool, input that does not parse) is a batch of its own.
 * Batches run in order.
 */
export function partitionToolCalls(calls: readonly PreparedCall[]): Batch[] {
  const batches: Batch[] = [];
  for (const call of calls) {
    const last = batches[batches.length - 1];
    if (call.concurrencySafe && last?.concurrent) last.calls.push(call);
    else batches.push({ concurrent: call.concurrencySafe, calls: [call] });
  }
  return batches;
}
