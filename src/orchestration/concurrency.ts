export const DEFAULT_MAX_CONCURRENCY = 10;

/** The cap from an explicit option, else `ARMATURE_MAX_TOOL_CONCURRENCY`, else 10. */
export function resolveMaxConcurrency(explicit: number | undefined, env: NodeJS.ProcessEnv = process.env): number {
  if (explicit !== undefined) {
    if (!Number.isInteger(explicit) || explicit < 1) throw new RangeError(`maxConcurrency must be a whole number ≥ 1, got ${explicit}`);
    return explicit;
  }
  const raw = env.ARMATURE_MAX_TOOL_CONCURRENCY;
  if (raw !== undefined && raw !== "") {
    const n = Number(raw);
    if (Number.isInteger(n) && n >= 1) return n;
  }
  return DEFAULT_MAX_CONCURRENCY;
}

/** Runs `task(i)` for every index with at most `limit` at once; results keep their index. */
export async function mapWithLimit<T>(count: number, limit: number, task: (index: number) => Promise<T>): Promise<T[]> {
  const results = new Array<T>(count);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const i = next++;
      results[i] = await task(i);
    }
  };
  const workers: Promise<void>[] = [];
  for (let w = 0; w < Math.min(limit, count); w++) workers.push(worker());
  await Promise.all(workers);
  return results;
}
