// The probe set: calls recorded from the reference agent (Claude Code 2.1.332, run offline through
// ../shared/reference/cc-harness against a scripted model; converted by scripts/probe-from-peer.py),
// replayed in order through one armature session per scenario. Measures how often the result text
// is the reference's exactly and how often is_error agrees; calls where the seeds decide
// otherwise are marked `deviation` in the fixture and reported apart.
import { createHash } from "node:crypto";
import { mkdir, readFile, utimes, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createSession } from "../src/session/session.js";
import { builtinTools } from "../src/tools/index.js";
import { loadSkills } from "../src/skills/index.js";
import { withTempDir } from "./helpers.js";

type FileSpec = string | { lines: string; count: number };
type Content = string | unknown[] | { sha256: string; length: number; head: string; tail: string };
interface Call { name: string; input: Record<string, unknown>; content: Content; isError: boolean; deviation?: string; pending?: string }
interface Scenario { name: string; files: Record<string, FileSpec>; calls: Call[] }

const fixture = fileURLToPath(new URL("./fixtures/reference-probes.json", import.meta.url));

function fileText(spec: FileSpec): string {
  if (typeof spec === "string") return spec;
  let out = "";
  for (let n = 1; n <= spec.count; n++) out += `${spec.lines.replaceAll("{n}", String(n))}\n`;
  return out;
}

/** What varies between runs and machines: ids, the throwaway paths of saved outputs. */
function normalize(text: string, dir: string): string {
  return text
    .replaceAll(dir, "$DIR")
    .replace(/(saved to|written to): \S+/g, "$1: <path>")
    .replace(/\bID: [A-Za-z0-9_-]+/g, "ID: <id>")
    .replace(/\(ID: [A-Za-z0-9_-]+\)/g, "(ID: <id>)");
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  return JSON.stringify(content);
}

/** JSON with sorted keys: block lists compare by content, not by key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v,
  );
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function expected(call: Call): (actual: string) => boolean {
  const c = call.content;
  if (typeof c === "string") return (a) => a === normalize(c, "$DIR");
  if (Array.isArray(c)) return (a) => canonical(tryParse(a)) === canonical(c);
  return (a) => createHash("sha256").update(a).digest("hex") === c.sha256;
}

interface Outcome { scenario: string; index: number; call: Call; actual: string; isError: boolean; textOk: boolean; errorOk: boolean }

async function replay(scenario: Scenario): Promise<Outcome[]> {
  return withTempDir(async (dir) => {
    const base = Date.now() / 1000 - 1000;
    let i = 0;
    for (const [rel, spec] of Object.entries(scenario.files)) {
      const path = join(dir, rel);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, fileText(spec));
      // The reference's newest-first orders follow the order the harness wrote the files in.
      await utimes(path, base + i, base + i);
      i++;
    }
    // The recordings ran with `.claude/skills` in a trusted project; armature reads it with --settings-from claude.
    const skills = { skills: () => loadSkills({ projectDir: dir, projectTrusted: true, claude: true, home: join(dir, ".no-home"), userDir: join(dir, ".no-home") }) };
    // The reference ran against an Anthropic model: a PDF goes as a document block.
    const session = createSession({ cwd: dir, tools: builtinTools({ skills }), permissionMode: "bypassPermissions", pdfDocuments: true });
    const outcomes: Outcome[] = [];
    try {
      for (const [index, call] of scenario.calls.entries()) {
        const input = JSON.parse(JSON.stringify(call.input).replaceAll("$DIR", dir)) as Record<string, unknown>;
        const [result] = await session.runTurn([{ type: "tool_use", id: `toolu_probe_${index}`, name: call.name, input }]);
        const actual = normalize(textOf(result!.content), dir);
        const isError = result!.is_error === true;
        outcomes.push({ scenario: scenario.name, index, call, actual, isError, textOk: expected(call)(actual), errorOk: isError === call.isError });
      }
    } finally {
      await session.close();
    }
    return outcomes;
  });
}

describe("the reference probe set", () => {
  it("matches the reference's text on ≥ 90% of calls and is_error on ≥ 98%", { timeout: 60_000 }, async () => {
    const scenarios = JSON.parse(await readFile(fixture, "utf8")) as Scenario[];
    const outcomes: Outcome[] = [];
    for (const s of scenarios) outcomes.push(...(await replay(s)));
    // `pending`: a tool not built yet. Counted in the figure printed for all calls, left out of the
    // asserted one (the assertion guards what exists against regressions).
    const all = outcomes.filter((o) => o.call.deviation === undefined);
    const measured = all.filter((o) => o.call.pending === undefined);
    const text = measured.filter((o) => o.textOk).length;
    const errors = measured.filter((o) => o.errorOk).length;
    const allText = all.filter((o) => o.textOk).length;
    const allErrors = all.filter((o) => o.errorOk).length;
    const misses = outcomes
      .filter((o) => !o.textOk || !o.errorOk)
      .map((o) => `${o.scenario}#${o.index} ${o.call.name} ${JSON.stringify(o.call.input).slice(0, 80)}${o.call.deviation ? ` (deviation: ${o.call.deviation})` : ""}${o.call.pending ? ` (pending: ${o.call.pending})` : ""}\n  want ${o.call.isError ? "error" : "ok"}: ${JSON.stringify(typeof o.call.content === "string" ? o.call.content : o.call.content).slice(0, 300)}\n  got  ${o.isError ? "error" : "ok"}: ${JSON.stringify(o.actual).slice(0, 300)}`);
    const pct = (n: number, d: number): string => `${n}/${d} (${((100 * n) / d).toFixed(1)}%)`;
    console.log(
      `probes: ${outcomes.length} calls, ${outcomes.length - all.length} deviations by design, ${all.length - measured.length} for tools not built yet\n` +
        `built tools: exact text ${pct(text, measured.length)}, is_error ${pct(errors, measured.length)}\n` +
        `all but deviations: exact text ${pct(allText, all.length)}, is_error ${pct(allErrors, all.length)}\n${misses.join("\n")}`,
    );
    expect(text / measured.length).toBeGreaterThanOrEqual(0.9);
    expect(errors / measured.length).toBeGreaterThanOrEqual(0.98);
  });
});
