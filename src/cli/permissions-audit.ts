// `armature permissions audit`: replays the tool calls of sessions already run through a policy
// (the usual settings flags), without running anything, and reports what that policy would have
// done with them.
import { readdir, realpath, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { AuditTally, renderAuditMarkdown, renderAuditText } from "../audit/audit-report.js";
import { readTranscriptCalls, type TranscriptCall } from "../audit/transcript-calls.js";
import { memoCanonicalize, realCanonicalize } from "../permissions/paths.js";
import { resolvePermission } from "../permissions/resolve.js";
import type { PermissionDecision } from "../permissions/types.js";
import { PERMISSION_MODES, type PermissionMode, type Tool } from "../tool/types.js";
import { projectSessionsDir, userConfigDir } from "../session/session-home.js";
import { builtinTools } from "../tools/index.js";
import { buildCheckRequest, type CheckContexts } from "./check-request.js";
import { UsageError, type CliIO } from "./io.js";
import { loadExecSettings, SETTINGS_HELP, SETTINGS_OPTIONS, settingsInputFrom, settingsWarnings, type ExecSettings, type ExecSettingsInput } from "./settings.js";

export const AUDIT_HELP = `Usage: armature permissions audit [FILE|DIR ...] [options]

Decides every tool call recorded in session transcripts under a policy (the settings options
below) and reports allow / ask / deny, the rules that decided most, the calls that would ask most
often (with a narrow rule for each), and the calls the original sessions ran that this policy
would deny. Nothing is run.

Transcripts: the reference agent's (~/.claude/projects/<project>/*.jsonl), armature's own
(agent conversations, a session's transcript.jsonl) and stream-json captures, detected per file.
A DIR is searched for *.jsonl (three levels deep). Without FILE or DIR: the current project's
folder in ~/.claude/projects/ (or $CLAUDE_CONFIG_DIR/projects/) and armature's own sessions
folder for it (~/.armature/projects/<project>/, or under $ARMATURE_CONFIG_DIR).

Options:
${SETTINGS_HELP}  --recorded-mode        decide each call in the permission mode its transcript recorded,
                         where it recorded one (default: the policy's mode for every call)
  --json                 the report as one JSON object
  --markdown             the report as Markdown (for a pull-request comment)
  --fail-on deny|ask     exit 4 when a call would be denied; with ask, also exit 3 when one
                         would ask (for CI); without it the exit code is 0 whatever was found
  -h, --help             this text
`;

const OPTIONS = {
  ...SETTINGS_OPTIONS,
  "recorded-mode": { type: "boolean" },
  json: { type: "boolean" },
  markdown: { type: "boolean" },
  "fail-on": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

const MAX_FILES = 100_000;

/** The reference agent's folder name for a project: every character but letters and digits becomes `-`. */
export function referenceProjectSlug(dir: string): string {
  return dir.replace(/[^a-zA-Z0-9]/g, "-");
}

async function isDir(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() === true;
}

/** The `*.jsonl` files under `dir`, up to three levels down (sessions keep sub-agents one below). */
async function jsonlFiles(dir: string, depth: number, out: string[]): Promise<void> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    throw new UsageError(`cannot read the folder ${dir}: ${(err as Error).message}`);
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    if (out.length >= MAX_FILES) return;
    const path = join(dir, e.name);
    if (e.isFile() && e.name.endsWith(".jsonl")) out.push(path);
    else if (e.isDirectory() && depth > 0 && !e.name.startsWith(".")) await jsonlFiles(path, depth - 1, out);
  }
}

async function transcriptFiles(paths: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  const out: string[] = [];
  if (paths.length > 0) {
    for (const p of paths) {
      const abs = resolve(p);
      const s = await stat(abs).catch((err: Error) => {
        throw new UsageError(`${p}: ${err.message}`);
      });
      if (s.isDirectory()) await jsonlFiles(abs, 3, out);
      else out.push(abs);
    }
    return out;
  }
  const real = await realpath(cwd).catch(() => cwd);
  const home = env.HOME ?? homedir();
  const folders = [join(env.CLAUDE_CONFIG_DIR ?? join(home, ".claude"), "projects", referenceProjectSlug(real)), projectSessionsDir(real, userConfigDir(env, home))];
  for (const folder of folders) if (await isDir(folder)) await jsonlFiles(folder, 3, out);
  if (out.length === 0) throw new UsageError(`no transcripts found in ${folders.join(" or ")}: name the transcript files or folders to audit`);
  return out;
}

type Undecided = { undecided: "unknown-tool" | "invalid-input"; message: string };

interface Auditor {
  decide(call: TranscriptCall): Promise<PermissionDecision | Undecided>;
}

function auditor(base: ExecSettingsInput, tools: readonly Tool[], recordedMode: boolean, tally: AuditTally, warn: (text: string) => void): Auditor {
  const settings = new Map<string, Promise<ExecSettings>>();
  const missing = new Set<string>();
  const settingsFor = (cwd: string): Promise<ExecSettings> => {
    let s = settings.get(cwd);
    if (!s) {
      s = loadExecSettings({ ...base, cwd });
      settings.set(cwd, s);
      void s.then((loaded) => {
        for (const w of settingsWarnings(loaded, tools)) warn(w);
      }, () => undefined);
    }
    return s;
  };
  const dirs = new Map<string, Promise<boolean>>();
  const contexts: CheckContexts = new Map();
  const home = base.home ?? homedir();
  // The audit runs nothing, so the file system stays as it is for its length: each path is
  // canonicalised once (existsSync + realpath per name per call were a third of its time).
  const canonicalize = memoCanonicalize(realCanonicalize);
  const effectiveCwd = async (call: TranscriptCall): Promise<string> => {
    const cwd = call.cwd;
    if (cwd === undefined) return base.cwd;
    let ok = dirs.get(cwd);
    if (!ok) dirs.set(cwd, (ok = isDir(cwd)));
    if (await ok) return cwd;
    if (!missing.has(cwd)) {
      missing.add(cwd);
      tally.addProblem("cwd-missing", `${cwd} (recorded in ${call.file}) is not a directory here: its calls are decided in ${base.cwd}`);
    }
    return base.cwd;
  };
  return {
    async decide(call) {
      const cwd = await effectiveCwd(call);
      const loaded = await settingsFor(cwd);
      const recorded = recordedMode && PERMISSION_MODES.includes(call.recordedMode as PermissionMode) ? (call.recordedMode as PermissionMode) : undefined;
      try {
        const request = await buildCheckRequest(
          { tool: call.tool, input: call.input ?? {}, cwd, mode: recorded ?? loaded.mode, rules: loaded.rules, additionalDirectories: loaded.additionalDirectories },
          tools,
          contexts,
        );
        return resolvePermission(request, { home, canonicalize });
      } catch (err) {
        const message = (err as Error).message;
        return { undecided: /no tool named/.test(message) ? "unknown-tool" : "invalid-input", message };
      }
    },
  };
}

export async function auditCommand(argv: string[], io: CliIO, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: true });
  if (values.help) {
    io.stdout.write(AUDIT_HELP);
    return 0;
  }
  const failOn = values["fail-on"];
  if (failOn !== undefined && failOn !== "deny" && failOn !== "ask") throw new UsageError(`--fail-on must be deny or ask; got ${JSON.stringify(failOn)}`);
  if (values.json && values.markdown) throw new UsageError("--json and --markdown: choose one");
  const base = settingsInputFrom(values);
  const files = await transcriptFiles(positionals, base.cwd, env);
  const tools = builtinTools();
  const policySettings = await loadExecSettings(base);
  const tally = new AuditTally();
  const warnings = new Set<string>();
  const audit = auditor(base, tools, values["recorded-mode"] === true, tally, (w) => warnings.add(w));
  const seen = new Set<string>();
  for (const file of files) {
    for await (const item of readTranscriptCalls(file)) {
      if (item.kind === "file") tally.addFile(item.file, item.format, item.lines);
      else if (item.kind === "problem") tally.addProblem(item.problem.kind, `${item.problem.file}: ${item.problem.message}`);
      else if (seen.has(item.call.toolUseId)) tally.addDuplicate();
      else {
        seen.add(item.call.toolUseId);
        const decision = await audit.decide(item.call);
        if ("undecided" in decision) tally.addUndecided(item.call, decision.undecided, decision.message);
        else tally.add(item.call, decision);
      }
    }
  }
  const report = tally.report({ mode: policySettings.mode, cwd: base.cwd, rules: policySettings.rules.length });
  for (const w of warnings) io.stderr.write(`armature: ${w}\n`);
  io.stdout.write(values.json ? `${JSON.stringify(report)}\n` : values.markdown ? renderAuditMarkdown(report) : renderAuditText(report));
  if (failOn === undefined) return 0;
  if (report.decisions.deny > 0) return 4;
  return failOn === "ask" && report.decisions.ask > 0 ? 3 : 0;
}
