import { statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { resolvePermission } from "../permissions/resolve.js";
import { sandboxStatus } from "../sandbox/status.js";
import type { PermissionDecision } from "../permissions/types.js";
import type { Tool } from "../tool/types.js";
import { builtinTools } from "../tools/index.js";
import { buildCheckRequest, standInNote } from "./check-request.js";
import { didYouMean } from "./suggest.js";
import { UsageError, type CliIO } from "./io.js";
import { checkMode, loadExecSettings, SETTINGS_HELP, SETTINGS_OPTIONS, settingsInputFrom, settingsWarnings, type ExecSettingsInput } from "./settings.js";

export const PERMISSIONS_HELP = `Usage: armature permissions <check|list|audit> [options]

  check --tool NAME --input JSON   the decision a call would get, and what decided it:
                                   {"behavior","reason","rule","source"}; nothing is run.
                                   A shell call adds "sandbox": the OS boundary it would run in
                                   (read-only, workspace-write, unsandboxed, or unavailable).
                                   A tool exec does not have (WebFetch, Agent, mcp__…) adds a "note".
  check --batch FILE               JSON Lines of {tool, input, cwd?, mode?, allow?, ask?, deny?, addDirs?}
                                   ("-" for stdin); one decision per line; a bad line gets
                                   {"error","line"} and the exit code 2
  list                             the effective rules with their sources
  audit [FILE|DIR ...]             the decisions a policy gives the calls of sessions already run
                                   (transcripts of the reference agent and of armature); see
                                   'armature permissions audit --help'

Options (the settings options are the same as exec's):
${SETTINGS_HELP}  --json                 (list) print JSON
  --exit-code            (check) exit 0 when allowed, 3 when it would ask, 4 when denied
                         (with --batch: the strictest line; 2 for a bad line wins). Without it,
                         check exits 0 whatever the decision.
  -h, --help             this text
`;

/** `check --exit-code`: the exit status of a decision. */
const DECISION_EXIT = { allow: 0, ask: 3, deny: 4 } as const;

const OPTIONS = {
  ...SETTINGS_OPTIONS,
  tool: { type: "string" },
  input: { type: "string" },
  batch: { type: "string" },
  json: { type: "boolean" },
  "exit-code": { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

/** The printed shape of a decision (`note` for a tool exec does not have). */
export function decisionLine(d: PermissionDecision, note?: string): { behavior: string; reason: string; rule: string | null; source: string | null; sandbox?: string; note?: string } {
  return { behavior: d.behavior, reason: d.reason, rule: d.rule, source: d.source, ...(d.sandbox !== undefined ? { sandbox: d.sandbox } : {}), ...(note !== undefined ? { note } : {}) };
}

export async function permissionsCommand(argv: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === "-h" || sub === "--help" || sub === "help") {
    io.stdout.write(PERMISSIONS_HELP);
    return sub === undefined ? 2 : 0;
  }
  if (sub === "audit") return (await import("./permissions-audit.js")).auditCommand(rest, io);
  if (sub !== "check" && sub !== "list") throw new UsageError(`unknown permissions command ${JSON.stringify(sub)}: use check, list or audit.${didYouMean(sub, ["check", "list", "audit"])}\n\n${PERMISSIONS_HELP}`);
  const { values, positionals } = parseArgs({ args: rest, options: OPTIONS, strict: true, allowPositionals: false });
  if (values.help) {
    io.stdout.write(PERMISSIONS_HELP);
    return 0;
  }
  void positionals;
  const base = settingsInputFrom(values);
  const tools = builtinTools();
  if (sub === "list") return listCommand(base, tools, values.json === true, io);

  if (values.batch !== undefined) {
    if (values.tool !== undefined || values.input !== undefined) throw new UsageError("--batch reads tool and input from the file; drop --tool and --input");
    return batchCommand(values.batch, base, tools, io, values["exit-code"] === true);
  }
  if (values.tool === undefined) throw new UsageError("--tool is required (or --batch FILE)");
  if (values.input === undefined) throw new UsageError("--input is required: the tool's input as JSON, e.g. --input '{\"command\":\"ls\"}'");
  let input: unknown;
  try {
    input = JSON.parse(values.input);
  } catch (err) {
    throw new UsageError(`--input is not valid JSON: ${(err as Error).message}`);
  }
  const decision = await checkOne(values.tool, input, base, tools, io);
  io.stdout.write(`${JSON.stringify(decisionLine(decision, standInNote(values.tool, tools)))}\n`);
  return values["exit-code"] ? DECISION_EXIT[decision.behavior] : 0;
}

/** One call through settings → the tool's own checks → the resolver, as a real call would go. */
export async function checkOne(toolName: string, input: unknown, settingsInput: ExecSettingsInput, tools: readonly Tool[], io?: CliIO): Promise<PermissionDecision> {
  const settings = await loadExecSettings(settingsInput);
  if (io) for (const w of settingsWarnings(settings, tools)) io.stderr.write(`armature: ${w}\n`);
  const request = await buildCheckRequest(
    {
      tool: toolName,
      input,
      cwd: settingsInput.cwd,
      mode: settings.mode,
      rules: settings.rules,
      additionalDirectories: settings.additionalDirectories,
      // The same settings and probe a session uses: the tool's own check (dangerouslyDisableSandbox
      // asks) and the boundary a shell call would run in.
      sandbox: sandboxStatus(settings.sandbox, process.env),
    },
    tools,
  );
  return resolvePermission(request, settingsInput.home !== undefined ? { home: settingsInput.home } : {});
}

interface BatchLine {
  tool?: unknown;
  input?: unknown;
  cwd?: unknown;
  mode?: unknown;
  allow?: unknown;
  ask?: unknown;
  deny?: unknown;
  addDirs?: unknown;
}

function stringList(value: unknown, key: string, line: number): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) throw new UsageError(`line ${line}: ${key} must be an array of strings`);
  return value;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

async function batchCommand(file: string, base: ExecSettingsInput, tools: readonly Tool[], io: CliIO, exitCode: boolean): Promise<number> {
  let text: string;
  try {
    text = file === "-" ? await io.readStdin() : await readFile(file, "utf8");
  } catch (err) {
    throw new UsageError(`--batch: cannot read ${file}: ${(err as Error).message}`);
  }
  let failed = 0;
  let strictest = 0;
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.trim();
    if (raw === "") continue;
    const n = i + 1;
    try {
      let spec: BatchLine;
      try {
        spec = JSON.parse(raw) as BatchLine;
      } catch (err) {
        throw new UsageError(`line ${n}: not valid JSON (${(err as Error).message})`);
      }
      if (typeof spec !== "object" || spec === null || typeof spec.tool !== "string") throw new UsageError(`line ${n}: needs "tool" (a string) and "input"`);
      if (spec.cwd !== undefined && typeof spec.cwd !== "string") throw new UsageError(`line ${n}: cwd must be a string`);
      const cwd = typeof spec.cwd === "string" ? resolve(base.cwd, spec.cwd) : base.cwd;
      if (!isDirectory(cwd)) throw new UsageError(`line ${n}: cwd ${cwd} is not a directory`);
      const lineInput: ExecSettingsInput = {
        ...base,
        cwd,
        cli: {
          allow: [...(base.cli.allow ?? []), ...(stringList(spec.allow, "allow", n) ?? [])],
          ask: [...(base.cli.ask ?? []), ...(stringList(spec.ask, "ask", n) ?? [])],
          deny: [...(base.cli.deny ?? []), ...(stringList(spec.deny, "deny", n) ?? [])],
          mode: checkMode(spec.mode, `line ${n}: mode`) ?? base.cli.mode,
          addDirs: [...(base.cli.addDirs ?? []), ...(stringList(spec.addDirs, "addDirs", n) ?? [])],
        },
      };
      const decision = await checkOne(spec.tool, spec.input ?? {}, lineInput, tools);
      io.stdout.write(`${JSON.stringify(decisionLine(decision, standInNote(spec.tool, tools)))}\n`);
      strictest = Math.max(strictest, DECISION_EXIT[decision.behavior]);
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      failed++;
      io.stdout.write(`${JSON.stringify({ error: err.message.startsWith("line ") ? err.message : `line ${n}: ${err.message}`, line: n })}\n`);
    }
  }
  if (failed > 0) return 2;
  return exitCode ? strictest : 0;
}

async function listCommand(base: ExecSettingsInput, tools: readonly Tool[], json: boolean, io: CliIO): Promise<number> {
  const settings = await loadExecSettings(base);
  const warnings = settingsWarnings(settings, tools);
  if (json) {
    io.stdout.write(
      `${JSON.stringify({
        mode: settings.mode,
        modeSource: settings.loaded.modeSource,
        rules: settings.rules.map((r) => ({ behavior: r.behavior, rule: r.raw, source: r.source })),
        additionalDirectories: settings.additionalDirectories,
        sources: settings.loaded.sources,
        warnings,
      })}\n`,
    );
    return 0;
  }
  const out: string[] = [`mode: ${settings.mode} (${settings.loaded.modeSource})`];
  for (const behavior of ["deny", "ask", "allow"] as const) {
    const rules = settings.rules.filter((r) => r.behavior === behavior);
    out.push(`${behavior}:${rules.length === 0 ? " (none)" : ""}`);
    for (const r of rules) out.push(`  ${r.raw}    ${r.source}`);
  }
  if (settings.additionalDirectories.length > 0) out.push(`additional directories: ${settings.additionalDirectories.join(", ")}`);
  out.push("settings files:");
  for (const s of settings.loaded.sources) out.push(`  ${s.loaded ? "read   " : "absent "} ${s.level.padEnd(8)} ${s.path}`);
  for (const w of warnings) out.push(`warning: ${w}`);
  io.stdout.write(`${out.join("\n")}\n`);
  return 0;
}
