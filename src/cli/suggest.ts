// "Did you mean" for a mistyped flag or command: the known words nearest to it by edit distance
// (a swap of two neighbouring letters counts as one edit, so `--verison` finds `--version`).

/** Optimal string alignment distance: insertions, deletions, substitutions, adjacent swaps. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The candidates closest to `word` (at most three, nearest first), among those within reach: two
 * edits, one for words of four letters or fewer (leading dashes not counted); a candidate that
 * starts with the word (an abbreviation, `--perm`) counts too.
 */
export function closestWords(word: string, candidates: Iterable<string>): string[] {
  const bare = (w: string): string => w.replace(/^-+/, "").toLowerCase();
  const w = bare(word);
  if (w === "") return [];
  const reach = w.length <= 4 ? 1 : 2;
  const scored: Array<{ c: string; score: number }> = [];
  for (const c of new Set(candidates)) {
    const b = bare(c);
    if (b === w) continue;
    const distance = editDistance(w, b);
    if (distance <= reach) scored.push({ c, score: distance });
    else if (w.length >= 3 && b.startsWith(w)) scored.push({ c, score: reach + 1 });
  }
  scored.sort((x, y) => x.score - y.score || x.c.localeCompare(y.c));
  return scored.slice(0, 3).map((s) => s.c);
}

/** " Did you mean X?" (or "X or Y"), or "" when nothing is close. */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const close = closestWords(word, candidates);
  if (close.length === 0) return "";
  return ` Did you mean ${close.length === 1 ? close[0] : `${close.slice(0, -1).join(", ")} or ${close.at(-1)}`}?`;
}

/** The long flags a command's help text names (`--cwd DIR` → `--cwd`). */
export function flagsInHelp(help: string): string[] {
  return [...new Set([...help.matchAll(/(?<![\w-])--[a-z][a-z0-9-]*/g)].map((m) => m[0]))];
}
