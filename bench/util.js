// Small helpers shared by the benches.
import { performance } from "node:perf_hooks";

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Runs `fn` `warmup` times, then `runs` times; returns the per-run times in ms. */
export async function timeRuns(fn, { runs = 20, warmup = 3 } = {}) {
  for (let i = 0; i < warmup; i++) await fn();
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return times;
}

/** Prints one result line: name, figure, baseline, ratio, target, and whether the target is met. */
export function report({ name, value, unit, baseline, baselineName, target, ok }) {
  const ratio = baseline ? ` | baseline ${baselineName}: ${fmt(baseline)} ${unit} | ratio ${(value / baseline).toFixed(2)}×` : "";
  const verdict = ok === undefined ? "" : ok ? " | PASS" : " | MISS";
  console.log(`${name}: ${fmt(value)} ${unit}${ratio}${target ? ` | target ${target}` : ""}${verdict}`);
}

function fmt(v) {
  return v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(3);
}
