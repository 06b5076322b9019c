// Load on `armature mcp serve --http` (issue 27): the real CLI serves in its own process; 1, 8,
// 32 and 128 MCP sessions of the official SDK client each call Read in a loop for a few seconds.
// Prints calls/s and the p50/p99 latency per level; the ratio is against one session's p99.
// Target: p99 ≤ 1 s at 128 sessions. ARMATURE_BENCH_LOAD_SECONDS sets each level's length.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { report } from "./util.js";

const BIN = fileURLToPath(new URL("../bin/armature.js", import.meta.url));
const seconds = Number(process.env.ARMATURE_BENCH_LOAD_SECONDS ?? 4);
const dir = mkdtempSync(join(tmpdir(), "armature-mcp-load-"));
writeFileSync(join(dir, "a.txt"), "alpha\nbeta\ngamma\n".repeat(50));
const token = "bench-token-0123456789abcdef";
const child = spawn(process.execPath, [BIN, "mcp", "serve", "--cwd", dir, "--http", "0", "--token", token], { stdio: ["ignore", "ignore", "pipe"] });
const url = await new Promise((resolve, reject) => {
  createInterface({ input: child.stderr }).on("line", (line) => {
    const m = /serving MCP at (\S+)/.exec(line);
    if (m) resolve(m[1]);
  });
  child.once("exit", (code) => reject(new Error(`mcp serve exited with ${code}`)));
});

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function level(sessions) {
  const clients = [];
  for (let i = 0; i < sessions; i++) {
    const client = new Client({ name: `load-${i}`, version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    clients.push(client);
  }
  const args = { name: "Read", arguments: { file_path: join(dir, "a.txt"), limit: 20 } };
  for (const c of clients) await c.callTool(args); // warm: each session has read the file once
  const latencies = [];
  let errors = 0;
  const end = performance.now() + seconds * 1000;
  await Promise.all(
    clients.map(async (c) => {
      while (performance.now() < end) {
        const t0 = performance.now();
        const r = await c.callTool(args).catch(() => ({ isError: true }));
        latencies.push(performance.now() - t0);
        if (r.isError) errors++;
      }
    }),
  );
  await Promise.all(clients.map((c) => c.close()));
  latencies.sort((a, b) => a - b);
  return { calls: latencies.length, perSecond: latencies.length / seconds, p50: pct(latencies, 50), p99: pct(latencies, 99), errors };
}

let baseP99;
for (const sessions of [1, 8, 32, 128]) {
  const r = await level(sessions);
  baseP99 ??= r.p99;
  console.log(`${sessions} sessions: ${r.perSecond.toFixed(0)} calls/s (${r.calls} calls, ${r.errors} errors), p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms`);
  report({
    name: `mcp serve --http, ${sessions} sessions, p99 of a Read call`,
    value: r.p99,
    unit: "ms",
    baseline: baseP99,
    baselineName: "1 session's p99",
    ...(sessions === 128 ? { target: "≤ 1000 ms", ok: r.p99 <= 1000 && r.errors === 0 } : {}),
  });
}
child.kill("SIGTERM");
await new Promise((r) => child.once("exit", r));
rmSync(dir, { recursive: true, force: true });
