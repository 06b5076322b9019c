// Bash tool benches:
// 1. `Bash {command: "true"}` end to end through createSession().runTurn vs a raw
//    spawn('bash', ['-c', 'true']): outside the sandbox (bypassPermissions, target ≤ 1.3× + 2 ms)
//    and inside it (default mode: the read-only boundary, bwrap with its own PID and network
//    namespaces; target ≤ 1.5× + 10 ms) and the workspace-write one (bypassPermissions: the walk
//    for protected paths before and after the call, same target). Both with the seccomp filter and
//    the session's private /tmp. The sandboxed figures are skipped where bwrap cannot run.
// 2. 1 GB of output through the tool, in a child process: peak RSS ≤ 150 MB, and on disk what a call
//    keeps of its output (its first and last 32 MiB with a line between them: issue 40's bound).
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createSession, createBashTool } from "../dist/bundle/index.js";
import { probeSandbox } from "../dist/sandbox/probe.js";
import { performance } from "node:perf_hooks";
import { median, report } from "./util.js";

const KEPT = 64 * 1024 * 1024; // ARMATURE_BASH_KEEP_OUTPUT_BYTES' default
const GB = 1024 ** 3;

if (process.argv[2] === "--child-1gb") {
  await childOneGigabyte();
} else {
  await startupBench({ sandbox: false, permissionMode: "bypassPermissions" }, "unsandboxed", 1.3, 2);
  const probe = probeSandbox();
  if (probe.available) {
    await startupBench({ permissionMode: "default" }, "in the read-only sandbox", 1.5, 10);
    // Workspace-write: the walk for protected paths before and after, the seccomp filter, the private /tmp.
    await startupBench({ permissionMode: "bypassPermissions" }, "in the workspace-write sandbox", 1.5, 10);
  } else console.log(`Bash {command:'true'} in the sandbox: skipped, ${probe.reason}`);
  oneGigabyteBench();
}

async function startupBench(sessionOptions, label, factor, plusMs) {
  const dir = mkdtempSync(join(tmpdir(), "armature-bench-"));
  const session = createSession({ cwd: dir, tools: [createBashTool()], ...sessionOptions });
  let n = 0;
  const viaTool = async () => {
    const [r] = await session.runTurn([{ type: "tool_use", id: `t${n++}`, name: "Bash", input: { command: "true" } }]);
    if (r.is_error) throw new Error(JSON.stringify(r));
  };
  if (sessionOptions.sandbox !== false && !session.info().sandbox.available) throw new Error("the sandboxed bench runs without a sandbox");
  const raw = () =>
    new Promise((resolve, reject) => {
      const child = spawn("bash", ["-c", "true"]);
      child.once("error", reject);
      child.once("close", resolve);
    });
  // Interleaved, alternating which goes first, so that load from elsewhere on the machine
  // weighs on both the same.
  const toolTimes = [];
  const rawTimes = [];
  for (let i = 0; i < 10; i++) {
    await viaTool();
    await raw();
  }
  for (let i = 0; i < 200; i++) {
    const pair = i % 2 === 0 ? [[viaTool, toolTimes], [raw, rawTimes]] : [[raw, rawTimes], [viaTool, toolTimes]];
    for (const [fn, times] of pair) {
      const t0 = performance.now();
      await fn();
      times.push(performance.now() - t0);
    }
  }
  await session.close();
  rmSync(dir, { recursive: true, force: true });
  const value = median(toolTimes);
  const baseline = median(rawTimes);
  report({
    name: `Bash {command:'true'} via runTurn, ${label} (median)`,
    value,
    unit: "ms",
    baseline,
    baselineName: "spawn bash -c true",
    target: `≤ ${factor}× + ${plusMs} ms`,
    ok: value <= factor * baseline + plusMs,
  });
}

function oneGigabyteBench() {
  const here = fileURLToPath(import.meta.url);
  const r = spawnSync(process.execPath, [here, "--child-1gb"], { encoding: "utf8", maxBuffer: 1024 * 1024 });
  if (r.status !== 0) {
    console.log(`1 GB through Bash: the child failed: ${r.stderr}`);
    process.exitCode = 1;
    return;
  }
  const result = JSON.parse(r.stdout.trim().split("\n").at(-1));
  report({
    name: `1 GB of output through Bash (${result.seconds.toFixed(1)} s, ${result.fileBytes} bytes on disk, inline ${result.inlineChars} chars)`,
    value: result.maxRssMB,
    unit: "MB peak RSS",
    target: "≤ 150 MB, and 64 MiB kept on disk (head and tail)",
    ok: result.maxRssMB <= 150 && result.fileBytes >= KEPT && result.fileBytes <= KEPT + 4096,
  });
}

async function childOneGigabyte() {
  const dir = mkdtempSync(join(tmpdir(), "armature-bench-"));
  const session = createSession({ cwd: dir, tools: [createBashTool()], permissionMode: "bypassPermissions" });
  let outputPath;
  const hooks = {
    has: (event) => event === "PostToolUse",
    run: async (_event, input) => {
      outputPath = input.tool_response.outputPath;
      return { additionalContext: [], systemMessages: [], suppressOutput: false, errors: [] };
    },
  };
  const withHooks = createSession({ cwd: dir, tools: [createBashTool()], permissionMode: "bypassPermissions", hooks });
  await session.close();
  const t0 = performance.now();
  const [r] = await withHooks.runTurn([
    { type: "tool_use", id: "big", name: "Bash", input: { command: `yes 'a line of output from a chatty build, 0123456789' | head -c ${GB}` } },
  ]);
  const seconds = (performance.now() - t0) / 1000;
  const inline = typeof r.content === "string" ? r.content : "";
  const fileBytes = outputPath ? statSync(outputPath).size : 0;
  const maxRssMB = process.resourceUsage().maxRSS / 1024;
  await withHooks.close();
  rmSync(dir, { recursive: true, force: true });
  console.log(JSON.stringify({ maxRssMB, fileBytes, seconds, inlineChars: inline.length, isError: r.is_error === true }));
}
