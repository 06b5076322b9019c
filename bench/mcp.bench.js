// MCP (issue 11). A pool of 1,000 MCP tools from the fixture server: ToolSearch query time and
// toolDefinitions time with deferral (JSON size beside the undeferred size); one MCP call through
// armature's pipeline vs the SDK's own client calling the same server directly (stdio and HTTP).
import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// searchDeferredTools is internal: the tsc output (one module graph with dist/index.js).
import { connectMcpServers, createSession, parseMcpServers } from "../dist/index.js";
import { searchDeferredTools } from "../dist/tools/tool-search/index.js";
import { median, report } from "./util.js";

const FIXTURE = fileURLToPath(new URL("../test/fixtures/mcp-server.mjs", import.meta.url));
const entries = (servers) => parseMcpServers({ mcpServers: servers }, "bench", "dynamic").servers;

// --- a pool of 1,000 MCP tools -----------------------------------------------------------
const manager = await connectMcpServers(entries({ big: { command: process.execPath, args: [FIXTURE, "--tools", "986"] } }), { cwd: process.cwd() });
const poolSize = manager.tools().length;
const source = { tools: () => manager.tools(), onToolsChanged: (l) => manager.onToolsChanged(l), close: async () => {} };
const deferredSession = createSession({ cwd: process.cwd(), toolSource: source, toolSearch: "auto" });
const fullSession = createSession({ cwd: process.cwd(), toolSource: source, toolSearch: "false" });

const ctx = deferredSession.context;
let t0 = performance.now();
await searchDeferredTools("gamma workflow 42", 5, ctx);
const searchCold = performance.now() - t0;
const searchTimes = [];
const queries = ["gamma workflow", "tool_512", "select:mcp__big__tool_7,mcp__big__echo", "+big number 99", "alpha synthetic"];
for (let i = 0; i < 500; i++) {
  const q = queries[i % queries.length];
  t0 = performance.now();
  await searchDeferredTools(q, 5, ctx);
  searchTimes.push(performance.now() - t0);
}
report({ name: `ToolSearch query, pool of ${poolSize} MCP tools (warm median; cold ${searchCold.toFixed(2)} ms)`, value: median(searchTimes), unit: "ms", target: "≤ 1 ms", ok: median(searchTimes) <= 1 });

async function defsTimes(session, provider) {
  t0 = performance.now();
  const first = await session.toolDefinitions(provider);
  const cold = performance.now() - t0;
  const times = [];
  for (let i = 0; i < 50; i++) {
    t0 = performance.now();
    await session.toolDefinitions(provider);
    times.push(performance.now() - t0);
  }
  return { cold, warm: median(times), bytes: JSON.stringify(first).length, count: first.length };
}
const deferredDefs = await defsTimes(deferredSession, "anthropic");
const fullDefs = await defsTimes(fullSession, "anthropic");
const deferredOpenAI = await defsTimes(deferredSession, "openai");
report({
  name: `toolDefinitions with deferral, ${poolSize} MCP tools (warm median; cold ${deferredDefs.cold.toFixed(2)} ms; ${deferredDefs.count} entries, ${deferredDefs.bytes} bytes of JSON vs ${fullDefs.bytes} undeferred)`,
  value: deferredDefs.warm,
  unit: "ms",
  baseline: fullDefs.warm,
  baselineName: "undeferred toolDefinitions",
  target: "≤ 5 ms",
  ok: deferredDefs.warm <= 5,
});
report({ name: `toolDefinitions (OpenAI) with deferral (${deferredOpenAI.bytes} bytes)`, value: deferredOpenAI.warm, unit: "ms", target: "≤ 5 ms", ok: deferredOpenAI.warm <= 5 });
await deferredSession.close();
await fullSession.close();
await manager.close();

// --- one call: armature vs the SDK client, same server -----------------------------------
// The baseline is the SDK's own Client with the SDK's own transport, connected to the same fixture
// server and, like any client that uses a server's tools (and like armature), listing the tools
// first: the SDK client then checks each result's structuredContent against the tool's
// outputSchema, as it does inside armature. Calls alternate one by one (the order flips every
// call), so load on the machine (2 cores, other work) hits both alike; the spread is printed.
const CALLS = 600;
const BLOCK = 100;
const quantile = (values, q) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * q))];
const fmtMs = (v) => v.toFixed(3);

async function compare(label, armatureConfig, directTransport) {
  const m = await connectMcpServers(entries({ fx: armatureConfig }), { cwd: process.cwd() });
  const session = createSession({ cwd: process.cwd(), toolSource: m, allow: ["mcp__fx"] });
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(directTransport);
  await client.listTools();
  const viaArmature = async (i) => {
    const [r] = await session.runTurn([{ type: "tool_use", id: `c${i}`, name: "mcp__fx__add", input: { a: i, b: 1 } }]);
    if (r.is_error || r.content !== `{"sum":${i + 1}}`) throw new Error(`armature call ${i} gave ${JSON.stringify(r)}`);
  };
  const direct = async (i) => {
    const r = await client.callTool({ name: "add", arguments: { a: i, b: 1 } });
    if (r.isError || r.structuredContent?.sum !== i + 1) throw new Error(`SDK call ${i} gave ${JSON.stringify(r)}`);
  };
  // Cold: the first call on each fresh connection (JIT and caches cold, nothing warmed up).
  let t = performance.now();
  await viaArmature(-1);
  const coldA = performance.now() - t;
  t = performance.now();
  await direct(-1);
  const coldD = performance.now() - t;
  for (let i = 0; i < 50; i++) {
    await viaArmature(i);
    await direct(i);
  }
  const a = [];
  const d = [];
  let cpuA = 0;
  let cpuD = 0;
  const timed = async (fn, i, times) => {
    const c = process.cpuUsage();
    const s = performance.now();
    await fn(i);
    times.push(performance.now() - s);
    const used = process.cpuUsage(c);
    return used.user + used.system;
  };
  for (let i = 0; i < CALLS; i++) {
    if (i % 2 === 0) {
      cpuA += await timed(viaArmature, i, a);
      cpuD += await timed(direct, i, d);
    } else {
      cpuD += await timed(direct, i, d);
      cpuA += await timed(viaArmature, i, a);
    }
  }
  const blockRatios = [];
  for (let b = 0; b < CALLS; b += BLOCK) blockRatios.push(median(a.slice(b, b + BLOCK)) / median(d.slice(b, b + BLOCK)));
  const ratio = median(a) / median(d);
  console.log(
    `  ${label}: armature p25–p75 ${fmtMs(quantile(a, 0.25))}–${fmtMs(quantile(a, 0.75))} ms, SDK client ${fmtMs(quantile(d, 0.25))}–${fmtMs(quantile(d, 0.75))} ms; ` +
      `ratio per block of ${BLOCK} calls ${Math.min(...blockRatios).toFixed(2)}–${Math.max(...blockRatios).toFixed(2)}×; ` +
      `client CPU per call (this process, all threads) armature ${(cpuA / CALLS).toFixed(0)} µs, SDK client ${(cpuD / CALLS).toFixed(0)} µs`,
  );
  report({
    name: `MCP call through armature (${label}; warm median of ${CALLS}; cold ${fmtMs(coldA)} ms vs SDK client cold ${fmtMs(coldD)} ms)`,
    value: median(a),
    unit: "ms",
    baseline: median(d),
    baselineName: "SDK client direct",
    target: "≤ 1.2×",
    ok: ratio <= 1.2,
  });
  await client.close();
  await session.close();
  return ratio;
}

const ratios = {};
ratios.stdio = await compare("stdio", { command: process.execPath, args: [FIXTURE] }, new StdioClientTransport({ command: process.execPath, args: [FIXTURE] }));

const http = spawn(process.execPath, [FIXTURE, "--http", "0"], { stdio: ["ignore", "pipe", "inherit"] });
const port = await new Promise((ok) => createInterface({ input: http.stdout }).once("line", (l) => ok(JSON.parse(l).port)));
const url = `http://127.0.0.1:${port}/mcp`;
try {
  ratios.http = await compare("Streamable HTTP", { type: "http", url }, new StreamableHTTPClientTransport(new URL(url)));
} finally {
  http.kill("SIGTERM");
}
const verdict = (r) => `${r.toFixed(2)}× ${r <= 1.2 ? "PASS" : "MISS"}`;
console.log(`MCP call vs SDK client, target ≤ 1.2×: stdio ${verdict(ratios.stdio)}, Streamable HTTP ${verdict(ratios.http)}`);
