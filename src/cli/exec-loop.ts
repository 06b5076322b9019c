// The turns of one `armature exec` run: from a checked file, or line by line from stdin as
// another program writes them (each result line is out before the next line is read).
import { performance } from "node:perf_hooks";
import { toOpenAIToolMessages } from "../providers/openai.js";
import { parseTurn, TurnParseError, type ParsedTurn } from "../providers/turns.js";
import type { Session } from "../session/session.js";
import type { SessionDirHandle } from "../session/state-dir.js";
import { OversizedLine, stdinLines, writeOut, type CliIO } from "./io.js";
import { namedOutputs, namesSessionFile } from "./named-outputs.js";

export interface ExecRun {
  session: Session;
  sessionDir: string;
  stateDir: SessionDirHandle | undefined;
  /** The lock of the temp session folder (no --session-dir). */
  tempLock: SessionDirHandle | undefined;
  format: "anthropic" | "openai" | undefined;
  io: CliIO;
  timing: boolean;
  /** Some output named a file in the session folder (a temp folder is then kept). */
  pointsIntoSessionDir: boolean;
  /** The shell output files results named (kept at the end; the others are removed). */
  namedOutputs: Set<string>;
  /** A signal arrived: the signal handler ends the run; the loop stops taking turns. */
  stopping: boolean;
  /** The sandbox's state is yet to be said (once, before the first shell call: asking probes it). */
  sandboxNoticeDue: boolean;
}

const round = (ms: number): number => Math.round(ms * 1000) / 1000;

/** Runs the turns; resolves to the number of bad input lines (streaming only). */
export async function runTurnLines(run: ExecRun, fileTurns: ParsedTurn[] | undefined): Promise<number> {
  if (fileTurns) {
    for (const [index, turn] of fileTurns.entries()) {
      if (run.stopping) return 0;
      await runOne(run, turn, index + 1);
    }
    return 0;
  }
  let bad = 0;
  let lineNo = 0;
  let turnNo = 0;
  for await (const raw of stdinLines(run.io)) {
    lineNo++;
    if (run.stopping) return bad;
    if (raw instanceof OversizedLine) {
      bad++;
      const message = `line ${lineNo}: ${raw.bytes} bytes, over the limit of ${raw.limit} bytes a line (ARMATURE_EXEC_MAX_LINE_BYTES sets it); it was skipped, the next lines go on`;
      await writeOut(run.io, `${JSON.stringify({ error: message, line: lineNo })}\n`);
      continue;
    }
    const text = raw.trim();
    if (text === "") continue;
    let turn: ParsedTurn;
    try {
      turn = parseLine(text);
    } catch (err) {
      bad++;
      const message = err instanceof Error ? err.message : String(err);
      await writeOut(run.io, `${JSON.stringify({ error: `line ${lineNo}: ${message}`, line: lineNo })}\n`);
      continue;
    }
    await runOne(run, turn, ++turnNo);
  }
  return bad;
}

function parseLine(text: string): ParsedTurn {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new TurnParseError(
      `not JSON (${err instanceof Error ? err.message : String(err)}); on stdin every line must be one whole turn (pass a multi-line JSON document as a FILE, or as - to read all of stdin first)`,
    );
  }
  return parseTurn(value);
}

async function runOne(run: ExecRun, turn: ParsedTurn, turnNo: number): Promise<void> {
  const { io, session } = run;
  if (run.sandboxNoticeDue && turn.blocks.some((b) => b.name === "Bash")) {
    // Without a sandbox the decisions alone hold the line.
    run.sandboxNoticeDue = false;
    const message = session.info().sandbox.message;
    if (message !== undefined) io.stderr.write(`armature: ${message}\n`);
  }
  const t0 = performance.now();
  const { results, notices, newMessages } = await session.runTurnDetailed(turn.blocks);
  if (run.stopping) return; // the signal handler closes the session and ends the process
  // What the turn adds to the conversation besides its results (a background task's end
  // notification, a skill's instructions, a plan-mode reminder): one line each, before the
  // results line, as {"type":"message","role":"user","content":…}. The driver appends it to the
  // conversation after the tool results.
  for (const message of newMessages) await writeOut(io, `${JSON.stringify({ type: "message", role: message.role, content: message.content })}\n`);
  for (const notice of notices) io.stderr.write(`armature: ${notice}\n`);
  if (run.timing) io.stderr.write(`${JSON.stringify({ turn: turnNo, calls: turn.blocks.length, toolPhaseMs: round(performance.now() - t0) })}\n`);
  const shape = run.format ?? turn.shape;
  const line = JSON.stringify(shape === "openai" ? toOpenAIToolMessages(results) : { role: "user", content: results });
  if (!run.pointsIntoSessionDir && namesSessionFile(line, run.sessionDir)) run.pointsIntoSessionDir = true;
  if (run.pointsIntoSessionDir) namedOutputs(line, run.sessionDir, run.namedOutputs);
  await writeOut(io, `${line}\n`);
  if (run.stateDir) {
    try {
      await run.stateDir.save(session.snapshot());
    } catch (err) {
      // The turn ran and its result is out; only the saved state is behind. Said on both streams,
      // and the next turns run (the next save writes the whole state again).
      const message = `turn ${turnNo}: the session state could not be saved in ${run.stateDir.dir}: ${(err as Error).message} The next turns go on; the next save tries again.`;
      io.stderr.write(`armature: ${message}\n`);
      await writeOut(io, `${JSON.stringify({ error: message, turn: turnNo })}\n`);
    }
  }
}
