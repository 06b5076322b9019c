/**
 * The indices of the `limit` oldest entries (smallest `mtimes[i]`; equal times by path, code
 * unit order), oldest first, among those `keep` accepts; and how many it accepted. A bounded
 * heap: O(n log limit) instead of sorting all n, and no object per entry.
 */
export function selectOldest(
  paths: readonly string[],
  mtimes: Float64Array,
  keep: (i: number) => boolean,
  limit: number,
): { indices: number[]; total: number } {
  // Max-heap on (mtime, path): the root is the newest of the oldest `limit` seen so far.
  const heap: number[] = [];
  const newer = (a: number, b: number): boolean => {
    const d = mtimes[a]! - mtimes[b]!;
    return d > 0 || (d === 0 && paths[a]! > paths[b]!);
  };
  let total = 0;
  for (let i = 0; i < paths.length; i++) {
    if (!keep(i)) continue;
    total++;
    if (heap.length < limit) {
      heap.push(i);
      siftUp(heap, heap.length - 1, newer);
    } else if (limit > 0 && newer(heap[0]!, i)) {
      heap[0] = i;
      siftDown(heap, 0, newer);
    }
  }
  heap.sort((a, b) => (newer(a, b) ? 1 : newer(b, a) ? -1 : 0));
  return { indices: heap, total };
}

function siftUp(heap: number[], at: number, newer: (a: number, b: number) => boolean): void {
  const item = heap[at]!;
  while (at > 0) {
    const parent = (at - 1) >> 1;
    if (!newer(item, heap[parent]!)) break;
    heap[at] = heap[parent]!;
    at = parent;
  }
  heap[at] = item;
}

function siftDown(heap: number[], at: number, newer: (a: number, b: number) => boolean): void {
  const item = heap[at]!;
  const n = heap.length;
  for (;;) {
    let child = 2 * at + 1;
    if (child >= n) break;
    if (child + 1 < n && newer(heap[child + 1]!, heap[child]!)) child++;
    if (!newer(heap[child]!, item)) break;
    heap[at] = heap[child]!;
    at = child;
  }
  heap[at] = item;
}
