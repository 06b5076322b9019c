// The conversation budget (microcompact): a 500-round synthetic conversation where 10% of the
// tool results are large (20,000 chars) and the rest small (800 chars). Each round appends an
// assistant message and its results, then runs the budget. Target: the history stays under the
// budget, and the compaction cost is ≤ 1 ms per round (mean), printed with the worst round.
// Baseline: appending the round to the history alone (what a loop with no budget pays).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { report } from "./util.js";

// The package's own start-up (a stall of the event loop after import while V8 compiles the
// shell grammar) is not the budget's cost: it is measured apart, then the budget runs cold.
const t0 = performance.now();
const { ConversationBudget } = await import("../dist/bundle/index.js");
const t1 = performance.now();
await new Promise((resolve) => setTimeout(resolve, 1));
console.log(`  (start-up, not counted: import ${(t1 - t0).toFixed(0)} ms, first timer after it ${(performance.now() - t1).toFixed(0)} ms)`);

const ROUNDS = 500;
const BUDGET = 400_000;

function makeRound(i) {
  const id = `toolu_${i}`;
  const size = i % 10 === 0 ? 20_000 : 800;
  return [
    { role: "assistant", content: [{ type: "tool_use", id, name: "Read", input: { file_path: `/p/f${i}.ts` } }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: `${id}\n`.padEnd(size, "y") }] },
  ];
}

function historyChars(messages) {
  let n = 0;
  for (const m of messages) if (m.role === "user") for (const b of m.content) if (b.type === "tool_result") n += b.content.length;
  return n;
}

async function run(cold) {
  const dir = mkdtempSync(join(tmpdir(), "armature-budget-bench-"));
  try {
    const budget = new ConversationBudget({ sessionDir: dir, budgetChars: BUDGET });
    const messages = [];
    const times = [];
    let uncompacted = 0;
    let compactions = 0;
    let appendOnly = 0;
    for (let i = 0; i < ROUNDS; i++) {
      const t0 = performance.now();
      const r = makeRound(i);
      messages.push(...r);
      appendOnly += performance.now() - t0;
      uncompacted += r[1].content[0].content.length;
      const t1 = performance.now();
      const rep = await budget.apply(messages);
      times.push(performance.now() - t1);
      if (rep.compacted > 0) compactions++;
    }
    const mean = times.reduce((a, b) => a + b, 0) / times.length;
    const worst = Math.max(...times);
    const after = historyChars(messages);
    const label = cold ? "cold (first conversation in the process)" : "warm";
    report({
      name: `budget per round, ${label}`,
      value: mean,
      unit: "ms",
      baseline: appendOnly / ROUNDS,
      baselineName: "appending the round",
      target: "≤ 1 ms mean",
      ok: mean <= 1,
    });
    console.log(`  worst round ${worst.toFixed(2)} ms; ${compactions} compactions in ${ROUNDS} rounds`);
    console.log(`  tool-result chars in history: ${uncompacted.toLocaleString()} without the budget → ${after.toLocaleString()} with it (budget ${BUDGET.toLocaleString()}) ${after <= BUDGET ? "PASS" : "MISS"}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await run(true);
await run(false);
