import { readdir } from "node:fs/promises";
import { basename, dirname, extname, join } from "node:path";
import { displayPath } from "./path.js";

/** Edit distance, capped: returns `cap + 1` as soon as the distance is known to exceed `cap`. */
export function editDistance(a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) > cap) return cap + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      cur.push(value);
      if (value < best) best = value;
    }
    if (best > cap) return cap + 1;
    prev = cur;
  }
  return prev[b.length]!;
}

function stem(name: string): string {
  const ext = extname(name);
  return ext ? name.slice(0, -ext.length) : name;
}

/** How close `candidate` is to the `wanted` name; undefined when not similar at all. */
export function nameSimilarity(wanted: string, candidate: string): number | undefined {
  if (candidate === wanted) return undefined;
  if (candidate.toLowerCase() === wanted.toLowerCase()) return 0;
  if (stem(candidate) === stem(wanted)) return 1;
  const cap = Math.max(2, Math.floor(wanted.length / 4));
  const distance = editDistance(wanted.toLowerCase(), candidate.toLowerCase(), cap);
  return distance <= cap ? 1 + distance : undefined;
}

async function names(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch {
    return [];
  }
}

/**
 * Up to `max` existing files whose names look like the missing `path`: in its folder (other
 * extension, other case, a typo), or the same name directly in the cwd.
 */
export async function suggestSimilarFiles(path: string, cwd: string, max = 3): Promise<string[]> {
  const wanted = basename(path);
  const scored: Array<{ path: string; score: number }> = [];
  for (const name of await names(dirname(path))) {
    const score = nameSimilarity(wanted, name);
    if (score !== undefined) scored.push({ path: join(dirname(path), name), score });
  }
  if (dirname(path) !== cwd && (await names(cwd)).includes(wanted)) scored.push({ path: join(cwd, wanted), score: 0.5 });
  scored.sort((a, b) => a.score - b.score || (a.path < b.path ? -1 : 1));
  return scored.slice(0, max).map((s) => s.path);
}

/** "File does not exist." with the cwd and, when there are some, the likely intended files. */
export async function missingFileMessage(path: string, cwd: string): Promise<string> {
  const similar = await suggestSimilarFiles(path, cwd);
  let message = `File does not exist. Note: your current working directory is ${cwd}.`;
  if (similar.length > 0) message += ` Did you mean ${similar.map((p) => displayPath(p, cwd)).join(", ")}?`;
  return message;
}
