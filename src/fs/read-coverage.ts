import type { ToolUseContext } from "../tool/types.js";

// Windows of one file read at one mtime add up: lines 1-2000 and then 2001-3100 (to the end) are
// a full read of a 3100-line file, so a file too long for one window can still be edited.

const KEY = "armature.file-tools.read-coverage";
const MAX_FILES = 200;

interface Coverage {
  mtimeMs: number;
  /** Disjoint, sorted, inclusive line ranges. */
  ranges: Array<[number, number]>;
  totalLines?: number;
}

function coverageMap(context: ToolUseContext): Map<string, Coverage> {
  let map = context.extensions.get(KEY) as Map<string, Coverage> | undefined;
  if (!map) {
    map = new Map();
    context.extensions.set(KEY, map);
  }
  return map;
}

/** Adds [start, end] to sorted disjoint ranges, merging neighbours. Pure. */
export function addRange(ranges: ReadonlyArray<[number, number]>, start: number, end: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let [s, e] = [start, end];
  for (const [a, b] of ranges) {
    if (b + 1 < s) out.push([a, b]);
    else if (e + 1 < a) {
      out.push([s, e]);
      [s, e] = [a, b];
    } else [s, e] = [Math.min(a, s), Math.max(b, e)];
  }
  out.push([s, e]);
  return out;
}

/**
 * Records that lines `startLine … endLine` were seen at `mtimeMs`; true when the windows seen at
 * that mtime now cover the whole file. Kept per agent (extensions are shared with sub-agents,
 * whose reads do not vouch for the parent).
 */
export function recordWindow(
  context: ToolUseContext,
  path: string,
  seen: { mtimeMs: number; startLine: number; endLine: number; totalLines?: number },
): boolean {
  const map = coverageMap(context);
  const key = `${context.agent.agentId ?? "main"}\0${path}`;
  let coverage = map.get(key);
  if (!coverage || coverage.mtimeMs !== seen.mtimeMs) coverage = { mtimeMs: seen.mtimeMs, ranges: [] };
  map.delete(key);
  if (seen.endLine >= seen.startLine) coverage.ranges = addRange(coverage.ranges, seen.startLine, seen.endLine);
  if (seen.totalLines !== undefined) coverage.totalLines = seen.totalLines;
  map.set(key, coverage);
  if (map.size > MAX_FILES) map.delete(map.keys().next().value!);
  const total = coverage.totalLines;
  if (total === undefined) return false;
  const first = coverage.ranges[0];
  return total === 0 || (first !== undefined && first[0] <= 1 && first[1] >= total);
}
