// `armature agent` start → first model request (issue 20: ≤ 300 ms on a quiet machine), in fresh
// processes (median of 7), beside `node -e 0` as the baseline: the time from spawn until a
// scripted Anthropic server on 127.0.0.1 receives the request, for `-p` and for the Agent SDK's
// way (flags only, `--input-format stream-json`, the prompt on stdin).
// ARMATURE_BENCH_ROOT=/path/to/another/checkout measures that build instead (before/after).
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { median, report } from "./util.js";

const RUNS = 7;
const root = resolve(process.env.ARMATURE_BENCH_ROOT ?? join(dirname(fileURLToPath(import.meta.url)), ".."));
const bin = join(root, "bin", "armature.js");
const dir = mkdtempSync(join(tmpdir(), "armature-bench-agent-startup-"));
const sse = (event, data) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
const body =
  sse("message_start", { type: "message_start", message: { id: "m", type: "message", role: "assistant", model: "m", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } }) +
  sse("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }) +
  sse("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "ok" } }) +
  sse("content_block_stop", { type: "content_block_stop", index: 0 }) +
  sse("message_delta", { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 1 } }) +
  sse("message_stop", { type: "message_stop" });

let onRequest = () => {};
const server = createServer((req, res) => {
  onRequest();
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(body);
  });
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const env = { ...process.env, HOME: dir, ANTHROPIC_BASE_URL: `http://127.0.0.1:${server.address().port}`, ANTHROPIC_API_KEY: "k" };

/** ms from spawn to the first request (or to exit, for the baseline); waits for the exit. */
function once(args, stdin) {
  return new Promise((resolveRun, reject) => {
    const t0 = performance.now();
    let first;
    onRequest = () => (first ??= performance.now() - t0);
    const child = spawn(process.execPath, args, { cwd: dir, env, stdio: ["pipe", "ignore", "pipe"] });
    let err = "";
    child.stderr.on("data", (d) => (err += d));
    if (stdin !== undefined) child.stdin.end(stdin);
    else child.stdin.end();
    child.on("exit", (code) => {
      const end = performance.now() - t0;
      if (args[0] !== "-e" && first === undefined) reject(new Error(`no request (exit ${code}): ${err}`));
      else resolveRun(first ?? end);
    });
  });
}

async function medianOf(args, stdin) {
  await once(args, stdin); // warm the file cache
  const times = [];
  for (let i = 0; i < RUNS; i++) times.push(await once(args, stdin));
  return median(times);
}

const baseline = await medianOf(["-e", "0"]);
const print = await medianOf([bin, "agent", "-p", "hi", "--output-format", "stream-json", "--session-dir", join(dir, "s")]);
const sdkLine = `${JSON.stringify({ type: "user", message: { role: "user", content: "hi" }, parent_tool_use_id: null })}\n`;
const sdk = await medianOf([bin, "--output-format", "stream-json", "--verbose", "--input-format", "stream-json", "--session-dir", join(dir, "s")], sdkLine);
report({ name: "agent -p: start → first model request", value: print, unit: "ms", baseline, baselineName: "node -e 0", target: "≤ 300 ms", ok: print <= 300 });
report({ name: "agent (SDK flags, stream-json stdin): start → first model request", value: sdk, unit: "ms", baseline, baselineName: "node -e 0", target: "≤ 300 ms", ok: sdk <= 300 });
server.close();
rmSync(dir, { recursive: true, force: true });
