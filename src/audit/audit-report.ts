// The tally of an audit: every recorded call with the decision a policy gives it, folded into
// the figures a person reads in one screen (and the same as JSON or Markdown). Pure: the
// decisions are made by the caller.
import type { PermissionDecision } from "../permissions/types.js";
import { commandFacts } from "../shell/command-facts.js";
import { commandFacts as bashCommandFacts } from "../tools/bash/bash-tool.js";
import type { OriginalOutcome, TranscriptCall, TranscriptFormat, TranscriptProblem } from "./transcript-calls.js";

export type Behavior = PermissionDecision["behavior"];

interface Counts {
  allow: number;
  ask: number;
  deny: number;
}

export interface CallExample {
  file: string;
  line: number;
  tool: string;
  call: string;
  rule: string | null;
  reason: string;
}

export interface AuditReport {
  files: { path: string; format: TranscriptFormat; lines: number }[];
  /** Calls found in the transcripts (a call recorded in two files, by its tool_use id, once). */
  calls: number;
  /** Calls seen again in another file (a conversation and its hooks' transcript) and skipped. */
  duplicates: number;
  /** Calls the policy decided (the rest: unknown tools, inputs the tool's schema refuses). */
  decided: number;
  decisions: Counts;
  byTool: { tool: string; allow: number; ask: number; deny: number }[];
  /** What decided most: a rule (with its source) or, without one, the mode or check. */
  deciders: { decider: string; behavior: Behavior; count: number }[];
  /** The commands that would ask most often, grouped by shape, with a narrow rule that would allow them. */
  asks: { shape: string; count: number; suggestedRule: string | null; example: string }[];
  /** Calls the original session ran that this policy denies. */
  wouldHaveStopped: { count: number; examples: CallExample[] };
  /** Calls the original session ran without a prompt that this policy would ask about. */
  wouldNowAsk: number;
  /** Calls the original session refused that this policy allows. */
  wouldNowAllow: number;
  /** Against the original decisions, over the calls whose transcript recorded one. */
  comparison: { recorded: number; originalPrompts: number; policyPrompts: number; saved: number; added: number } | null;
  /** The outcomes the transcripts recorded. */
  original: Partial<Record<OriginalOutcome, number>>;
  undecided: { unknownTools: { tool: string; count: number }[]; invalidInput: number; examples: string[] };
  problems: { counts: Partial<Record<TranscriptProblem["kind"] | "cwd-missing", number>>; examples: string[] };
  policy: { mode: string; cwd: string; rules: number };
}

const TOP = 10;
const EXAMPLES = 20;
const RAN: ReadonlySet<OriginalOutcome> = new Set(["allowed", "approved", "ran"]);
const REFUSED: ReadonlySet<OriginalOutcome> = new Set(["rejected", "denied"]);
const RECORDED: ReadonlySet<OriginalOutcome> = new Set(["allowed", "approved", "rejected", "denied"]);
const PROMPTED: ReadonlySet<OriginalOutcome> = new Set(["approved", "rejected"]);

function clip(text: string, max = 100): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/** One line saying what a call did: its command, its path, or its input. */
export function describeCall(tool: string, input: unknown): string {
  if (typeof input === "object" && input !== null) {
    const i = input as Record<string, unknown>;
    for (const key of ["command", "file_path", "notebook_path", "path", "url", "pattern", "query"]) {
      if (typeof i[key] === "string") return clip(i[key]);
    }
  }
  return clip(`${tool} ${JSON.stringify(input) ?? ""}`);
}

/** The group an asking call belongs to: the rule that would allow its kind, else its leading words. */
function shapeOf(call: TranscriptCall, decision: PermissionDecision): { shape: string; suggested: string | null } {
  const suggested = decision.suggestedRules?.[0] ?? null;
  if (suggested) return { shape: suggested, suggested };
  const input = call.input as Record<string, unknown> | undefined;
  if (call.tool === "Bash" && typeof input?.command === "string") {
    // Its first simple command's leading words (`git diff`, `npm run`), as the shell reads them:
    // the Bash tool's analysis of the call, which the decision just made (cached; a command the
    // analyser fails on is read as not understood, not thrown).
    const first = bashCommandFacts(input.command).subcommands.find((s) => !s.nested);
    const words = first ? commandFacts(first).wordsWritten.slice(0, 2).join(" ") : input.command.trim().slice(0, 40);
    return { shape: `Bash(${clip(words, 40)} …)`, suggested: null };
  }
  return { shape: call.tool, suggested: null };
}

function bump<K>(map: Map<K, number>, key: K, by = 1): void {
  map.set(key, (map.get(key) ?? 0) + by);
}

function top<K>(map: Map<K, number>, n = TOP): [K, number][] {
  return [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, n);
}

export class AuditTally {
  private readonly files: AuditReport["files"] = [];
  private calls = 0;
  private duplicates = 0;
  private readonly decisions: Counts = { allow: 0, ask: 0, deny: 0 };
  private readonly byTool = new Map<string, Counts>();
  private readonly deciders = new Map<string, number>();
  private readonly asks = new Map<string, { count: number; suggested: string | null; example: string }>();
  private stopped = 0;
  private readonly stoppedExamples: CallExample[] = [];
  private wouldNowAsk = 0;
  private wouldNowAllow = 0;
  private recorded = 0;
  private originalPrompts = 0;
  private policyPrompts = 0;
  private saved = 0;
  private added = 0;
  private readonly original = new Map<OriginalOutcome, number>();
  private readonly unknownTools = new Map<string, number>();
  private invalidInput = 0;
  private readonly undecidedExamples: string[] = [];
  private readonly problemCounts = new Map<TranscriptProblem["kind"] | "cwd-missing", number>();
  private readonly problemExamples: string[] = [];

  addFile(path: string, format: TranscriptFormat, lines: number): void {
    this.files.push({ path, format, lines });
  }

  addDuplicate(): void {
    this.duplicates++;
  }

  addProblem(kind: TranscriptProblem["kind"] | "cwd-missing", message: string): void {
    bump(this.problemCounts, kind);
    if (this.problemExamples.length < EXAMPLES) this.problemExamples.push(message);
  }

  /** A call no decision could be made for: a tool the policy does not know, or an input its schema refuses. */
  addUndecided(call: TranscriptCall, why: "unknown-tool" | "invalid-input", message: string): void {
    this.calls++;
    bump(this.original, call.outcome);
    if (why === "unknown-tool") bump(this.unknownTools, call.tool);
    else this.invalidInput++;
    if (this.undecidedExamples.length < EXAMPLES) this.undecidedExamples.push(`${call.file}:${call.line}: ${call.tool}: ${clip(message, 160)}`);
  }

  add(call: TranscriptCall, decision: PermissionDecision): void {
    this.calls++;
    const b = decision.behavior;
    this.decisions[b]++;
    let counts = this.byTool.get(call.tool);
    if (!counts) this.byTool.set(call.tool, (counts = { allow: 0, ask: 0, deny: 0 }));
    counts[b]++;
    bump(this.deciders, `${b}\u0000${decision.rule !== null ? `${decision.rule} (${decision.source ?? "?"})` : (decision.source ?? "?")}`);
    if (b === "ask") {
      const { shape, suggested } = shapeOf(call, decision);
      const group = this.asks.get(shape);
      if (group) group.count++;
      else this.asks.set(shape, { count: 1, suggested, example: describeCall(call.tool, call.input) });
    }
    const o = call.outcome;
    bump(this.original, o);
    if (RAN.has(o) && b === "deny") {
      this.stopped++;
      if (this.stoppedExamples.length < EXAMPLES) {
        this.stoppedExamples.push({ file: call.file, line: call.line, tool: call.tool, call: describeCall(call.tool, call.input), rule: decision.rule, reason: clip(decision.reason, 200) });
      }
    }
    if ((o === "allowed" || o === "ran") && b === "ask") this.wouldNowAsk++;
    if (REFUSED.has(o) && b === "allow") this.wouldNowAllow++;
    if (RECORDED.has(o)) {
      this.recorded++;
      const before = PROMPTED.has(o);
      const now = b === "ask";
      if (before) this.originalPrompts++;
      if (now) this.policyPrompts++;
      if (before && !now) this.saved++;
      if (!before && now) this.added++;
    }
  }

  report(policy: AuditReport["policy"]): AuditReport {
    const decided = this.decisions.allow + this.decisions.ask + this.decisions.deny;
    return {
      files: this.files,
      calls: this.calls,
      duplicates: this.duplicates,
      decided,
      decisions: { ...this.decisions },
      byTool: [...this.byTool.entries()].map(([tool, c]) => ({ tool, ...c })).sort((a, b) => b.allow + b.ask + b.deny - (a.allow + a.ask + a.deny)),
      deciders: top(this.deciders).map(([key, count]) => {
        const [behavior, decider] = key.split("\u0000") as [Behavior, string];
        return { decider, behavior, count };
      }),
      asks: [...this.asks.entries()]
        .sort((a, b) => b[1].count - a[1].count)
        .slice(0, TOP)
        .map(([shape, g]) => ({ shape, count: g.count, suggestedRule: g.suggested, example: g.example })),
      wouldHaveStopped: { count: this.stopped, examples: this.stoppedExamples },
      wouldNowAsk: this.wouldNowAsk,
      wouldNowAllow: this.wouldNowAllow,
      comparison:
        this.recorded > 0
          ? { recorded: this.recorded, originalPrompts: this.originalPrompts, policyPrompts: this.policyPrompts, saved: this.saved, added: this.added }
          : null,
      original: Object.fromEntries(this.original),
      undecided: {
        unknownTools: top(this.unknownTools, 50).map(([tool, count]) => ({ tool, count })),
        invalidInput: this.invalidInput,
        examples: this.undecidedExamples,
      },
      problems: { counts: Object.fromEntries(this.problemCounts), examples: this.problemExamples },
      policy,
    };
  }
}

function pct(n: number, of: number): string {
  return of === 0 ? "0%" : `${((100 * n) / of).toFixed(n === of || n === 0 ? 0 : 1)}%`;
}

/** The report for a terminal: what a person needs to judge the policy, in one screen. */
export function renderAuditText(r: AuditReport): string {
  const out: string[] = [];
  const d = r.decisions;
  out.push(`Audited ${r.calls} tool call${r.calls === 1 ? "" : "s"} from ${r.files.length} transcript${r.files.length === 1 ? "" : "s"} (mode ${r.policy.mode}, ${r.policy.rules} rule${r.policy.rules === 1 ? "" : "s"}, cwd ${r.policy.cwd})`);
  out.push(`  allow ${d.allow} (${pct(d.allow, r.decided)})   ask ${d.ask} (${pct(d.ask, r.decided)})   deny ${d.deny} (${pct(d.deny, r.decided)})${r.decided < r.calls ? `   undecided ${r.calls - r.decided}` : ""}`);
  if (r.comparison) {
    const c = r.comparison;
    out.push(`  prompts: ${c.policyPrompts} with this policy, ${c.originalPrompts} in the original sessions (${c.saved} saved, ${c.added} added; over ${c.recorded} calls with a recorded decision)`);
  }
  if (r.wouldHaveStopped.count > 0 || r.wouldNowAsk > 0 || r.wouldNowAllow > 0) {
    out.push(`  against the original runs: ${r.wouldHaveStopped.count} that ran would be denied, ${r.wouldNowAsk} that ran unasked would ask, ${r.wouldNowAllow} that were refused would run`);
  }
  if (r.wouldHaveStopped.count > 0) {
    out.push("", `Would have stopped (${r.wouldHaveStopped.count}):`);
    for (const e of r.wouldHaveStopped.examples.slice(0, 8)) out.push(`  ${e.tool}: ${e.call}    ← ${e.rule ?? e.reason}`);
    if (r.wouldHaveStopped.count > 8) out.push(`  … ${r.wouldHaveStopped.count - 8} more (--json lists ${Math.min(r.wouldHaveStopped.count, EXAMPLES)})`);
  }
  if (r.asks.length > 0) {
    out.push("", "Would ask most often:");
    for (const a of r.asks.slice(0, 8)) out.push(`  ${String(a.count).padStart(6)}  ${a.shape}${a.suggestedRule ? "" : "   (no narrow rule; e.g. " + a.example + ")"}`);
  }
  if (r.deciders.length > 0) {
    out.push("", "Decided most by:");
    for (const x of r.deciders.slice(0, 6)) out.push(`  ${String(x.count).padStart(6)}  ${x.behavior.padEnd(5)} ${x.decider}`);
  }
  const undecided = r.calls - r.decided;
  if (undecided > 0) {
    const tools = r.undecided.unknownTools.map((t) => `${t.tool} ×${t.count}`).join(", ");
    out.push("", `Undecided ${undecided}: ${tools ? `unknown tools ${tools}` : ""}${tools && r.undecided.invalidInput ? "; " : ""}${r.undecided.invalidInput ? `${r.undecided.invalidInput} with inputs the tool's schema refuses` : ""}`);
  }
  const problems = Object.entries(r.problems.counts);
  if (problems.length > 0) {
    out.push("", `Problems reading: ${problems.map(([k, n]) => `${k} ×${n}`).join(", ")}`);
    for (const m of r.problems.examples.slice(0, 3)) out.push(`  ${m}`);
  }
  return `${out.join("\n")}\n`;
}

function mdCell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/`/g, "'");
}

/** The same report as Markdown, for a pull-request comment. */
export function renderAuditMarkdown(r: AuditReport): string {
  const d = r.decisions;
  const out: string[] = [
    "### Permission policy audit",
    "",
    `${r.calls} tool calls from ${r.files.length} transcripts, mode \`${r.policy.mode}\`, ${r.policy.rules} rules.`,
    "",
    "| decision | calls | share |",
    "|---|---:|---:|",
    `| allow | ${d.allow} | ${pct(d.allow, r.decided)} |`,
    `| ask | ${d.ask} | ${pct(d.ask, r.decided)} |`,
    `| deny | ${d.deny} | ${pct(d.deny, r.decided)} |`,
  ];
  if (r.decided < r.calls) out.push(`| undecided | ${r.calls - r.decided} | |`);
  if (r.comparison) {
    const c = r.comparison;
    out.push("", `Prompts: **${c.policyPrompts}** with this policy against ${c.originalPrompts} in the original sessions (${c.saved} saved, ${c.added} added).`);
  }
  if (r.wouldHaveStopped.count > 0) {
    out.push("", `#### Would have stopped (${r.wouldHaveStopped.count})`, "", "| tool | call | rule |", "|---|---|---|");
    for (const e of r.wouldHaveStopped.examples) out.push(`| ${e.tool} | \`${mdCell(e.call)}\` | ${mdCell(e.rule ?? e.reason)} |`);
  }
  if (r.asks.length > 0) {
    out.push("", "#### Would ask most often", "", "| calls | shape | suggested rule |", "|---:|---|---|");
    for (const a of r.asks) out.push(`| ${a.count} | \`${mdCell(a.shape)}\` | ${a.suggestedRule ? `\`${mdCell(a.suggestedRule)}\`` : "—"} |`);
  }
  const problems = Object.entries(r.problems.counts);
  if (problems.length > 0) out.push("", `Problems reading: ${problems.map(([k, n]) => `${k} ×${n}`).join(", ")}.`);
  return `${out.join("\n")}\n`;
}
