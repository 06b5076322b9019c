// The reference CLI's scenarios: each scenario (reference/scenarios.json) plays a scripted model
// against `armature agent -p … --output-format stream-json`, with the reference's own flags, and the
// run is compared with what the reference CLI did with the same script (reference/fixtures/, recorded
// by scripts/record-reference-scenarios.sh): the stream-json event sequence (types, subtypes, content
// blocks), every tool result (text and error flag), the keys of each structured tool_use_result, and
// the result event's subtype, turns and denials. The fixtures hold no prose of the reference (no
// system prompt, no tool descriptions): only what its tools and its stream said in these runs.
// ARMATURE_REFERENCE_VERBOSE=1 prints the differences of the listed scenarios too.
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, realpath, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { anthropicReply, startMockModelServer, type AnthropicScriptBlock, type RecordedRequest, type ScriptedResponse } from "../mock-model-server.js";

const here = dirname(fileURLToPath(import.meta.url));
const ARMATURE = join(here, "..", "..", "bin", "armature.js");
/** Set by the recording script: the reference CLI to record fixtures from. */
const RECORD_WITH = process.env.ARMATURE_RECORD_REFERENCE;
/** The harness's tool set (the reference's default set has no Glob/Grep). */
const DEFAULT_TOOLS = "Bash,Edit,Glob,Grep,NotebookEdit,Read,Write";

type ScriptCall = { name: string; input: unknown } | { type: "text"; text: string };
interface Scenario {
  name: string;
  prompt?: string;
  files?: Record<string, string>;
  /** Modification times of files, in seconds from now (Glob lists the oldest first). */
  mtimes?: Record<string, number>;
  /** The model's turns: the tool calls of each reply; after the last, `final_text`. */
  turns: ScriptCall[][];
  final_text?: string;
  /** Flags after `-p PROMPT --output-format stream-json --verbose` (default --dangerously-skip-permissions). */
  args?: string[];
  tools?: string;
  /** A sub-agent's own script: requests whose first user message holds `marker`. */
  subagent?: { marker: string; turns: ScriptCall[][]; final_text: string };
}

/** What a run is compared on. */
interface Observed {
  events: string[];
  tools: Array<{ name: string; is_error: boolean; text: string; result_keys: string[] | null }>;
  result: { subtype: string; is_error: boolean; num_turns: number; denials: string[]; structured_output?: unknown } | null;
}

const scenarios = JSON.parse(await readFile(join(here, "reference", "scenarios.json"), "utf8")) as Scenario[];

function substCwd(value: unknown, cwd: string): unknown {
  if (typeof value === "string") return value.split("$CWD").join(cwd);
  if (Array.isArray(value)) return value.map((v) => substCwd(v, cwd));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substCwd(v, cwd)]));
  return value;
}

function firstUserText(body: Record<string, unknown>): string {
  const first = (body.messages as Array<{ role: string; content: unknown }> | undefined)?.find((m) => m.role === "user");
  return JSON.stringify(first?.content ?? "");
}

/**
 * The scripted model: a request's turn is the number of assistant messages it carries, so the
 * script does not depend on how many side requests (titles, token counts) a client makes; a
 * request without tools is a side request and gets "OK".
 */
function modelFor(scenario: Scenario, cwd: string): (request: RecordedRequest) => ScriptedResponse {
  return (request) => {
    const body = request.body;
    if (!request.url.startsWith("/v1/messages") || request.url.startsWith("/v1/messages/count_tokens")) return { body: JSON.stringify({ input_tokens: 1, data: [] }) };
    const tools = Array.isArray(body.tools) ? body.tools : [];
    const sub = scenario.subagent && firstUserText(body).includes(scenario.subagent.marker) ? scenario.subagent : undefined;
    const script = sub ?? { turns: scenario.turns, final_text: scenario.final_text ?? "Done." };
    const turn = ((body.messages ?? []) as Array<{ role: string }>).filter((m) => m.role === "assistant").length;
    let blocks: AnthropicScriptBlock[];
    if (tools.length === 0) blocks = [{ type: "text", text: "OK" }];
    else if (turn < script.turns.length) {
      blocks = script.turns[turn]!.map((call, i): AnthropicScriptBlock =>
        "name" in call ? { type: "tool_use", id: `toolu_mock_t${turn}_${i}${sub ? "_sub" : ""}`, name: call.name, input: substCwd(call.input, cwd) } : call,
      );
    } else blocks = [{ type: "text", text: script.final_text ?? "Done." }];
    if (body.stream === true) return anthropicReply(blocks);
    const stop = blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn";
    const message = { id: "msg_mock", type: "message", role: "assistant", model: String(body.model ?? "claude-mock"), content: blocks, stop_reason: stop, stop_sequence: null, usage: { input_tokens: 100, output_tokens: 10 } };
    return { body: JSON.stringify(message) };
  };
}

/** The run's folder, tool ids, and a background task's random id and output file. */
function normalize(text: string, cwd: string): string {
  return text
    .split(cwd)
    .join("$CWD")
    .replace(/toolu_mock_t(\d+)_(\d+)(_sub)?/g, "toolu_T$1_$2$3")
    .replace(/(background with ID: )[\w-]+/g, "$1<id>")
    .replace(/(Output is being written to: )\S+/g, "$1<file>");
}

function blockText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return JSON.stringify(content);
  return content.map((c: { type: string; text?: string }) => (c.type === "text" ? c.text : `[${c.type}]`)).join("\n");
}

/** The stream's shape and the tools' results, with the run's folder and ids made neutral. */
function observe(lines: Array<Record<string, unknown>>, cwd: string): Observed {
  const events: string[] = [];
  const calls = new Map<string, { index: number; name: string }>();
  const results: Array<Observed["tools"][number] & { index: number }> = [];
  let result: Observed["result"] = null;
  for (const ev of lines) {
    const type = String(ev.type);
    const parent = typeof ev.parent_tool_use_id === "string" ? " (sub-agent)" : "";
    const content = (ev.message as { content?: unknown } | undefined)?.content;
    if (type === "assistant" || type === "user") {
      const blocks = Array.isArray(content) ? (content as Array<Record<string, unknown>>) : [{ type: "text" }];
      events.push(`${type}${parent}: ${blocks.map((b) => (b.type === "tool_use" ? `tool_use ${String(b.name)}` : String(b.type))).join(", ")}`);
      for (const b of blocks) {
        if (b.type === "tool_use") calls.set(String(b.id), { index: calls.size, name: String(b.name) });
        if (b.type !== "tool_result") continue;
        const call = calls.get(String(b.tool_use_id));
        const tur = ev.tool_use_result;
        results.push({
          index: call?.index ?? Number.MAX_SAFE_INTEGER,
          name: call?.name ?? "?",
          is_error: b.is_error === true,
          text: normalize(blockText(b.content), cwd),
          result_keys: tur && typeof tur === "object" && !Array.isArray(tur) ? Object.keys(tur).sort() : null,
        });
      }
    } else if (type === "system") events.push(`system/${String(ev.subtype)}`);
    else if (type === "result") {
      events.push(`result/${String(ev.subtype)}`);
      const denials = (ev.permission_denials as Array<{ tool_name: string }> | undefined) ?? [];
      result = { subtype: String(ev.subtype), is_error: ev.is_error === true, num_turns: Number(ev.num_turns), denials: denials.map((d) => d.tool_name) };
      if (ev.structured_output !== undefined) result.structured_output = ev.structured_output;
    } else events.push(type);
  }
  // In the order of the calls (parallel calls finish in any order).
  const tools = results.sort((a, b) => a.index - b.index).map(({ index: _index, ...rest }) => rest);
  return { events, tools, result };
}

/** Runs one scenario through a CLI (armature, or the reference when recording); its stream-json lines. */
async function runScenario(scenario: Scenario, cli: { file: string; args: string[] }): Promise<{ observed: Observed; stderr: string }> {
  const base = await mkdtemp(join(tmpdir(), `armature-ref-${scenario.name}-`));
  try {
    const cwd = join(base, "project");
    const home = join(base, "home");
    await mkdir(join(home, ".claude"), { recursive: true });
    await mkdir(cwd, { recursive: true });
    for (const [rel, text] of Object.entries(scenario.files ?? {})) {
      await mkdir(dirname(join(cwd, rel)), { recursive: true });
      await writeFile(join(cwd, rel), text);
    }
    for (const [rel, seconds] of Object.entries(scenario.mtimes ?? {})) {
      const when = new Date(Date.now() + seconds * 1000);
      await utimes(join(cwd, rel), when, when);
    }
    const real = await realpath(cwd);
    const server = await startMockModelServer(Array.from({ length: 200 }, () => modelFor(scenario, real)));
    try {
      const env: Record<string, string> = {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: home,
        CLAUDE_CONFIG_DIR: join(home, ".claude"),
        TMPDIR: process.env.TMPDIR ?? "/tmp",
        LANG: "C.UTF-8",
        ANTHROPIC_API_KEY: "test-key",
        ANTHROPIC_BASE_URL: server.url,
        DISABLE_TELEMETRY: "1",
        DISABLE_AUTOUPDATER: "1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        // Anything that is not loopback goes to the mock, which answers it without leaving the machine.
        HTTPS_PROXY: server.url,
        HTTP_PROXY: server.url,
        NO_PROXY: "127.0.0.1,localhost",
        ...(process.getuid?.() === 0 ? { IS_SANDBOX: "1" } : {}),
      };
      const args = [
        ...cli.args,
        "-p",
        scenario.prompt ?? "Follow the scripted scenario.",
        "--output-format",
        "stream-json",
        "--verbose",
        ...(scenario.args ?? ["--dangerously-skip-permissions"]),
        "--tools",
        scenario.tools ?? DEFAULT_TOOLS,
      ];
      const child = spawn(cli.file, args, { cwd: real, env, stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      const killer = setTimeout(() => child.kill("SIGKILL"), 120_000);
      await new Promise((resolve) => child.on("close", resolve));
      clearTimeout(killer);
      const lines = stdout
        .split("\n")
        .filter((l) => l.trim() !== "")
        .map((l) => {
          try {
            return JSON.parse(l) as Record<string, unknown>;
          } catch {
            return { type: "_not_json", line: l };
          }
        });
      return { observed: observe(lines, real), stderr };
    } finally {
      await server.close();
    }
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}

const fixturePath = (name: string) => join(here, "reference", "fixtures", `${name}.json`);

/** Where armature and the reference part ways in one scenario (empty: they agree). */
function differences(ours: Observed, reference: Observed): string[] {
  const out: string[] = [];
  if (JSON.stringify(ours.events) !== JSON.stringify(reference.events)) out.push(`events: ours ${JSON.stringify(ours.events)}; reference ${JSON.stringify(reference.events)}`);
  const n = Math.max(ours.tools.length, reference.tools.length);
  for (let i = 0; i < n; i++) {
    const a = ours.tools[i];
    const b = reference.tools[i];
    if (JSON.stringify(a) !== JSON.stringify(b)) out.push(`tool result ${i + 1}: ours ${JSON.stringify(a)}; reference ${JSON.stringify(b)}`);
  }
  if (JSON.stringify(ours.result) !== JSON.stringify(reference.result)) out.push(`result: ours ${JSON.stringify(ours.result)}; reference ${JSON.stringify(reference.result)}`);
  return out;
}

describe.runIf(RECORD_WITH !== undefined)("recording the reference's scenarios", () => {
  it.each(scenarios.map((s) => [s.name, s] as const))("%s", async (_name, scenario) => {
    const { observed, stderr } = await runScenario(scenario, { file: RECORD_WITH!, args: [] });
    expect(observed.result, stderr).not.toBeNull();
    await mkdir(dirname(fixturePath(scenario.name)), { recursive: true });
    await writeFile(fixturePath(scenario.name), `${JSON.stringify(observed, null, 2)}\n`);
  }, 180_000);
});

/**
 * Scenarios where armature parts ways with the reference (2.1.332) by decision: they are recorded
 * and run, but not counted. The issue's count is "of 25": the 27 recorded less these two.
 */
const OUT_OF_SCOPE: Record<string, string> = {
  "07-edit-unread":
    "the reference now edits a file the model has not read (contentNotInModelContext); armature's Edit refuses until it is read — the seeds' read-before-edit rule, which COMPAT.md keeps where the seeds are stricter",
  "18-todowrite":
    "the reference turns TodoWrite off in this mode (its task tools replace it: 'No such tool available: TodoWrite'); armature's tool set has TodoWrite (COMPAT.md §1)",
};

/**
 * Where armature still parts ways with the reference, and why. Every other scenario must agree;
 * one of these that starts to agree is reported, so it can leave the list.
 */
const KNOWN_DIFFERENCES: Record<string, string> = {
  "27-subagent":
    "the reference starts a sub-agent in the background by default ('Async agent launched', task events, the report in a second run); armature runs it in the foreground unless run_in_background is set",
};

/** The issue's target: the scenarios in scope that agree. */
const TARGET = 22;

describe.runIf(RECORD_WITH === undefined)("armature agent against the reference's recorded scenarios", () => {
  const inScope = scenarios.filter((s) => !(s.name in OUT_OF_SCOPE));
  it(`agrees with the reference on ${inScope.length - Object.keys(KNOWN_DIFFERENCES).length} of the ${inScope.length} scenarios in scope (target ${TARGET})`, async () => {
    const unexpected: string[] = [];
    const known: string[] = [];
    let agreed = 0;
    for (const scenario of scenarios) {
      const reference = JSON.parse(await readFile(fixturePath(scenario.name), "utf8")) as Observed;
      const { observed, stderr } = await runScenario(scenario, { file: process.execPath, args: [ARMATURE] });
      const diff = differences(observed, reference);
      const outOfScope = scenario.name in OUT_OF_SCOPE;
      if (diff.length === 0) {
        if (!outOfScope) agreed++;
        if (scenario.name in KNOWN_DIFFERENCES || outOfScope) process.stderr.write(`reference scenarios: ${scenario.name} agrees now; take it off its list\n`);
        continue;
      }
      const report = `${scenario.name}:\n  ${diff.join("\n  ")}${stderr.trim() ? `\n  stderr: ${stderr.trim().slice(0, 500)}` : ""}`;
      (scenario.name in KNOWN_DIFFERENCES || outOfScope ? known : unexpected).push(report);
    }
    process.stderr.write(
      `reference scenarios: ${agreed} of ${inScope.length} in scope agree (target ${TARGET}); out of scope: ${Object.keys(OUT_OF_SCOPE).join(", ")}; known differences: ${Object.keys(KNOWN_DIFFERENCES).join(", ")}\n`,
    );
    if (process.env.ARMATURE_REFERENCE_VERBOSE) process.stderr.write(`${known.join("\n")}\n`);
    expect(unexpected, unexpected.join("\n")).toEqual([]);
    expect(agreed).toBeGreaterThanOrEqual(inScope.length - Object.keys(KNOWN_DIFFERENCES).length);
    expect(agreed).toBeGreaterThanOrEqual(TARGET);
  }, 900_000);
});
