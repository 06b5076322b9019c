import { mkdir, readFile } from "node:fs/promises";
import { randomUUID } from "node:crypto";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { toOpenAIToolMessages } from "../providers/openai.js";
import { parseTurnsFile, TurnParseError, type ParsedTurn } from "../providers/turns.js";
import { HookConfigError } from "../hooks/config.js";
import { createHookRunner, type ConfiguredHookRunner } from "../hooks/runner.js";
import { permissionRuleIfMatcher } from "../session/hook-if.js";
import { createSession, type SessionOptions } from "../session/session.js";
import { builtinTools } from "../tools/index.js";
import { UsageError, type CliIO } from "./io.js";
import { terminalApprover } from "./prompt.js";
import { offerTrust } from "./trust.js";
import { loadExecSettings, SETTINGS_HELP, SETTINGS_OPTIONS, settingsInputFrom, settingsWarnings } from "./settings.js";
import { connectCliMcp, MCP_CONFIG_HELP, MCP_CONFIG_OPTIONS } from "./mcp-config.js";

export const EXEC_HELP = `Usage: armature exec [FILE|-] [options]

Runs assistant turns of tool calls and prints their tool_result blocks.
Input: JSON Lines, one turn a line (an array of tool_use blocks, an Anthropic assistant
message, or an OpenAI assistant message with tool_calls); a whole-file JSON document is
one turn. Output: one JSON line per turn.

Options:
${SETTINGS_HELP}${MCP_CONFIG_HELP}  --session-dir DIR      where full outputs are kept (default: a new folder in the temp dir, kept)
  --format FORMAT        anthropic | openai (default: the shape of the input)
  --max-concurrency N    concurrency-safe calls at once (default 10)
  --interactive          ask on the terminal when a call needs approval
  -h, --help             this text
`;

const round = (ms: number): number => Math.round(ms * 1000) / 1000;

export async function execCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      ...SETTINGS_OPTIONS,
      ...MCP_CONFIG_OPTIONS,
      format: { type: "string" },
      "session-dir": { type: "string" },
      "max-concurrency": { type: "string" },
      interactive: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    io.stdout.write(EXEC_HELP);
    return 0;
  }
  if (positionals.length > 1) throw new UsageError(`exec takes one input file, got ${positionals.length}: ${positionals.join(" ")}`);
  const settingsInput = settingsInputFrom(values);
  const format = values.format;
  if (format !== undefined && format !== "anthropic" && format !== "openai") {
    throw new UsageError(`--format must be anthropic or openai; got ${JSON.stringify(format)}`);
  }
  let maxConcurrency: number | undefined;
  if (values["max-concurrency"] !== undefined) {
    maxConcurrency = Number(values["max-concurrency"]);
    if (!Number.isInteger(maxConcurrency) || maxConcurrency < 1) {
      throw new UsageError(`--max-concurrency must be a whole number ≥ 1; got ${JSON.stringify(values["max-concurrency"])}`);
    }
  }

  const file = positionals[0] ?? "-";
  let text: string;
  try {
    text = file === "-" ? await io.readStdin() : await readFile(file, "utf8");
  } catch (err) {
    throw new UsageError(`cannot read the input ${file === "-" ? "from stdin" : `file ${file}`}: ${(err as Error).message}`);
  }
  let turns: ParsedTurn[];
  try {
    turns = parseTurnsFile(text);
  } catch (err) {
    if (err instanceof TurnParseError) throw new UsageError(`${file === "-" ? "stdin" : file}: ${err.message}`);
    throw err;
  }

  const cwd = settingsInput.cwd;
  let settings = await loadExecSettings(settingsInput);
  if (values.interactive && io.isTTY) settings = await offerTrust(settings, settingsInput, io);
  const tools = builtinTools();
  for (const warning of settingsWarnings(settings, tools)) io.stderr.write(`armature: ${warning}\n`);
  if (values.interactive && !io.isTTY) throw new UsageError("--interactive needs a terminal; without one, calls that ask are denied");
  let hooks: ConfiguredHookRunner | undefined;
  if (settings.hookConfigs.length > 0) {
    try {
      hooks = createHookRunner(settings.hookConfigs, {
        projectDir: resolve(cwd),
        env: settings.env,
        ...settings.hookPolicy,
        ifMatcher: permissionRuleIfMatcher(() => session.context),
      });
    } catch (err) {
      if (err instanceof HookConfigError) throw new UsageError(err.message);
      throw err;
    }
    for (const warning of hooks.warnings) io.stderr.write(`armature: ${warning}\n`);
  }
  // The session's files (full shell output, persisted results) outlive the process: the
  // paths in the results are for the model to read in a later turn, maybe in a later exec.
  const sessionId = randomUUID();
  if (values["session-dir"] !== undefined) {
    try {
      await mkdir(resolve(values["session-dir"]), { recursive: true });
    } catch (err) {
      throw new UsageError(`--session-dir: cannot use ${values["session-dir"]} as a folder: ${(err as Error).message}`);
    }
  }
  const sessionOptions: SessionOptions = {
    sessionId,
    sessionDir: values["session-dir"] !== undefined ? resolve(values["session-dir"]) : join(tmpdir(), `armature-exec-${sessionId}`),
    hooks,
    cwd,
    tools,
    rules: settings.rules,
    permissionMode: settings.mode,
    additionalDirectories: settings.additionalDirectories,
    env: settings.env,
    maxConcurrency,
    // The session's own permission engine wraps this approver (always-allow memory included).
    canUseTool: values.interactive ? terminalApprover(io) : undefined,
  };
  // The hooks' `if` matcher (built above) reads this session's context when a hook runs.
  sessionOptions.toolSource = await connectCliMcp(values, settings, cwd, io);
  const session = createSession(sessionOptions);
  // ARMATURE_TIMING=1: one JSON line per turn on stderr with the time of its tool phase, and
  // the process's time before the first turn (start-up), reported apart.
  const timing = process.env.ARMATURE_TIMING === "1";
  if (timing) io.stderr.write(`${JSON.stringify({ startupMs: round(performance.now()) })}\n`);
  try {
    for (const [index, turn] of turns.entries()) {
      const t0 = performance.now();
      const { results, notices } = await session.runTurnDetailed(turn.blocks);
      for (const notice of notices) io.stderr.write(`armature: ${notice}\n`);
      if (timing) io.stderr.write(`${JSON.stringify({ turn: index + 1, calls: turn.blocks.length, toolPhaseMs: round(performance.now() - t0) })}\n`);
      const shape = format ?? turn.shape;
      const line = shape === "openai" ? toOpenAIToolMessages(results) : { role: "user", content: results };
      io.stdout.write(`${JSON.stringify(line)}\n`);
    }
  } finally {
    await session.close();
  }
  return 0;
}
