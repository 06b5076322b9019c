import { readFile } from "node:fs/promises";
import { randomUUID } from "node:crypto";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { parseTurnsFile, TurnParseError, type ParsedTurn } from "../providers/turns.js";
import { createSession, type Session } from "../session/session.js";
import { exitOnSignals } from "../session/signals.js";
import { openSessionDir, SessionDirError, type SessionDirHandle } from "../session/state-dir.js";
import { builtinTools } from "../tools/index.js";
import { runTurnLines, type ExecRun } from "./exec-loop.js";
import { existingOutputs, removeUnnamedOutputs } from "./named-outputs.js";
import { positiveInt, UsageError, type CliIO } from "./io.js";
import { terminalApprover } from "./prompt.js";
import { TEMP_HELP, tempSessionDir } from "./gc.js";
import { offerTrust } from "./trust.js";
import { sessionKey } from "../session/session-home.js";
import { connectCliMcp, MCP_CONFIG_HELP, MCP_CONFIG_OPTIONS } from "./mcp-config.js";
import { cliSkills, skillToolOptions } from "./skills.js";
import { loadExecSettings, SETTINGS_HELP, SETTINGS_OPTIONS, settingsHooks, settingsInputFrom, settingsWarnings } from "./settings.js";

export const EXEC_HELP = `Usage: armature exec [FILE|-] [options]

Runs assistant turns of tool calls and prints their tool_result blocks, one JSON line per
turn. A turn is an array of tool_use blocks, an Anthropic assistant message, or an OpenAI
assistant message with tool_calls.

Input:
  (no FILE)   JSON Lines on stdin, run as they come: each line runs as soon as it is complete
              and its result line is written before the next line is read, so another program
              can drive exec turn by turn. A bad line gets {"error","line"} on stdout and the
              rest go on (exit 2 at the end). A line is at most 256 MiB
              (ARMATURE_EXEC_MAX_LINE_BYTES): a longer one gets its error line, unread.
  FILE | -    a file (or all of stdin): every line is checked before anything runs; a whole
              JSON document is one turn. A bad line is an error naming it, and nothing runs.

Options:
${SETTINGS_HELP}${MCP_CONFIG_HELP}  --session-dir DIR      keep the session in DIR: files read (with their hashes), cwd, rules
                         allowed "always", background task records are saved after every turn
                         and restored by the next exec with the same DIR (one process at a time);
                         a save that fails is an {"error","turn"} line, and the next turns run
  --format FORMAT        anthropic | openai (default: the shape of the input)
  --max-concurrency N    concurrency-safe calls at once (default 10)
  --interactive          ask on the terminal when a call needs approval
  -h, --help             this text

${TEMP_HELP}
SIGTERM, SIGINT or SIGHUP stop every process the session started, then exit 128+signal.
Exit codes: 0 done (tool failures are results), 2 bad arguments or a bad input line.
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
  const maxConcurrency = positiveInt(values["max-concurrency"], "--max-concurrency");

  // A file (or `-`): read and check every line before anything runs. No file: stream stdin.
  const file = positionals[0];
  let fileTurns: ParsedTurn[] | undefined;
  if (file !== undefined) fileTurns = await readTurnsFile(file, io);
  else if (io.stdinIsTTY) io.stderr.write("armature exec: waiting for JSON Lines on stdin, one assistant turn a line (Ctrl-D ends)\n");

  const cwd = settingsInput.cwd;
  let settings = await loadExecSettings(settingsInput);
  if (values.interactive && io.isTTY) settings = await offerTrust(settings, settingsInput, io);
  const tools = builtinTools(skillToolOptions(await cliSkills(settings, settingsInput)));
  for (const warning of settingsWarnings(settings, tools)) io.stderr.write(`armature: ${warning}\n`);
  if (values.interactive && !io.isTTY) throw new UsageError("--interactive needs a terminal; without one, calls that ask are denied");
  // The hooks' `if` matcher reads this session's context when a hook runs.
  const hooks = settingsHooks(settings, cwd, () => session.context, io);

  let stateDir: SessionDirHandle | undefined;
  if (values["session-dir"] !== undefined) {
    try {
      stateDir = await openSessionDir(resolve(values["session-dir"]), { signing: { key: await sessionKey(), projectDir: cwd } });
    } catch (err) {
      if (err instanceof SessionDirError) throw new UsageError(`--session-dir: ${err.message}`);
      throw new UsageError(`--session-dir: cannot use ${values["session-dir"]} as a folder: ${(err as Error).message}`);
    }
  }
  for (const what of stateDir?.dropped ?? []) io.stderr.write(`armature: not restored from ${stateDir!.dir}: ${what}\n`);
  const sessionId = stateDir?.snapshot?.sessionId ?? randomUUID();
  const sessionDir = stateDir?.dir ?? join(tmpdir(), tempSessionDir(sessionId));
  // The temp folder is locked too, so that `armature gc` leaves it alone while this process runs.
  const tempLock = stateDir ? undefined : await openSessionDir(sessionDir);
  // The hooks' `if` matcher (built above) reads this session's context when a hook runs.
  const session: Session = createSession({
    sessionId,
    sessionDir,
    resumable: stateDir !== undefined,
    hooks,
    cwd,
    tools,
    rules: settings.rules,
    permissionMode: settings.mode,
    additionalDirectories: settings.additionalDirectories,
    env: settings.env,
    sandbox: settings.sandbox,
    maxConcurrency,
    restore: stateDir?.snapshot,
    toolSource: await connectCliMcp(values, settings, cwd, io),
    // The session's own permission engine wraps this approver (always-allow memory included).
    canUseTool: values.interactive ? terminalApprover(io, cwd) : undefined,
  });


  const run: ExecRun = {
    session,
    sessionDir,
    stateDir,
    tempLock,
    format,
    io,
    timing: process.env.ARMATURE_TIMING === "1",
    sandboxNoticeDue: true,
    pointsIntoSessionDir: false,
    // A --session-dir's earlier runs may have named their outputs: those are theirs to keep.
    namedOutputs: new Set(stateDir ? await existingOutputs(sessionDir) : []),
    stopping: false,
  };
  // ARMATURE_TIMING=1: the process's time before the first turn (start-up), then one JSON line
  // per turn on stderr with the time of its tool phase.
  if (run.timing) io.stderr.write(`${JSON.stringify({ startupMs: round(performance.now()) })}\n`);
  let finished = false;
  const finish = async (): Promise<void> => {
    if (finished) return;
    finished = true;
    await session.close();
    await finishRun(run);
  };
  const removeSignalHandlers = io.handleSignals
    ? exitOnSignals(async () => {
        run.stopping = true;
        await finish();
      })
    : undefined;
  let badLines = 0;
  try {
    badLines = await runTurnLines(run, fileTurns);
  } finally {
    if (!run.stopping) {
      await finish();
      removeSignalHandlers?.();
    }
  }
  return badLines > 0 ? 2 : 0;
}

async function readTurnsFile(file: string, io: CliIO): Promise<ParsedTurn[]> {
  let text: string;
  try {
    text = file === "-" ? await io.readStdin() : await readFile(file, "utf8");
  } catch (err) {
    throw new UsageError(`cannot read the input ${file === "-" ? "from stdin" : `file ${file}`}: ${(err as Error).message}`);
  }
  try {
    return parseTurnsFile(text);
  } catch (err) {
    if (err instanceof TurnParseError) throw new UsageError(`${file === "-" ? "stdin" : file}: ${err.message}`);
    throw err;
  }
}

/** After close: the state saved and the lock released, or the temp folder removed unless results point into it. */
async function finishRun(run: ExecRun): Promise<void> {
  const { session, stateDir, io } = run;
  // Full outputs no result named cannot be found again: removed (the named ones stay).
  await removeUnnamedOutputs(run.sessionDir, run.namedOutputs);
  if (stateDir) {
    try {
      await stateDir.save(session.snapshot());
    } catch (err) {
      io.stderr.write(`armature: could not save the session state in ${stateDir.dir}: ${(err as Error).message}\n`);
    } finally {
      stateDir.release();
    }
    return;
  }
  run.tempLock?.release();
  const { rm } = await import("node:fs/promises");
  if (!run.pointsIntoSessionDir) {
    await rm(run.sessionDir, { recursive: true, force: true });
    return;
  }
  io.stderr.write(`armature: results name files in ${run.sessionDir}; it is kept (remove it when done, or run 'armature gc')\n`);
}
