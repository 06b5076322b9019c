// The tool calls recorded in session transcripts, read as a stream: the reference agent's
// (`~/.claude/projects/<slug>/<session>.jsonl`), armature's own (the agent's conversations and a
// session's `transcript.jsonl`) and stream-json captures (`-p --output-format stream-json`).
// Each call comes out with its input, the directory it ran in and, where the transcript
// recorded it, what happened to it then. Nothing here decides or runs anything.
import { createReadStream } from "node:fs";

/** What the original run did with a call, as far as its transcript says. */
export type OriginalOutcome =
  /** Decided without a person (a rule, the mode, a read-only check) and run. */
  | "allowed"
  /** A person (or a prompt tool) was asked; they approved. */
  | "approved"
  /** Asked and refused, or asked where nobody could answer. */
  | "rejected"
  /** Refused by a deny rule or a hook. */
  | "denied"
  /** The transcript records a result but not how the call was decided. */
  | "ran"
  /** The call failed before any decision (unknown tool, bad input). */
  | "failed"
  /** No result was recorded (the session ended first, or the file was cut). */
  | "no-result";

export interface TranscriptCall {
  file: string;
  /** 1-based line of the tool_use block. */
  line: number;
  toolUseId: string;
  tool: string;
  input: unknown;
  /** The directory the call ran in, when the transcript says. */
  cwd?: string;
  /** The permission mode recorded for the session at that point, when the transcript says. */
  recordedMode?: string;
  /** A sub-agent's call (the reference's `isSidechain`). */
  sidechain: boolean;
  outcome: OriginalOutcome;
}

export type TranscriptFormat = "reference" | "armature" | "stream-json" | "unknown";

export interface TranscriptProblem {
  file: string;
  line?: number;
  kind: "malformed-line" | "oversized-line" | "truncated" | "unreadable" | "not-a-transcript";
  message: string;
}

export interface ReadOptions {
  /** Lines longer than this are skipped, never held in memory whole (default 16 MiB). */
  maxLineBytes?: number;
  /** Calls still waiting for their result beyond this many are emitted without one (default 10,000). */
  maxPending?: number;
}

export type TranscriptItem =
  | { kind: "call"; call: TranscriptCall }
  | { kind: "problem"; problem: TranscriptProblem }
  | { kind: "file"; file: string; format: TranscriptFormat; lines: number };

const DEFAULT_MAX_LINE = 16 * 1024 * 1024;
const DEFAULT_MAX_PENDING = 10_000;

/** The lines of a file, split on `\n` without ever buffering more than `maxLineBytes` of one line. */
async function* boundedLines(file: string, maxLineBytes: number): AsyncGenerator<{ text: string | undefined; bytes: number; complete: boolean }> {
  let parts: Buffer[] = [];
  let length = 0;
  let oversized = false;
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      const end = nl === -1 ? chunk.length : nl;
      if (!oversized) {
        if (length + (end - start) > maxLineBytes) {
          oversized = true;
          parts = [];
        } else if (end > start) parts.push(chunk.subarray(start, end));
      }
      length += end - start;
      if (nl === -1) break;
      yield { text: oversized ? undefined : Buffer.concat(parts).toString("utf8"), bytes: length, complete: true };
      parts = [];
      length = 0;
      oversized = false;
      start = nl + 1;
    }
    // A kept part must not pin the whole 1 MiB chunk it came from.
    if (parts.length > 0) parts = [Buffer.from(Buffer.concat(parts))];
  }
  if (length > 0) yield { text: oversized ? undefined : Buffer.concat(parts).toString("utf8"), bytes: length, complete: false };
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}

/** The reference's `permissionDecision` and `toolDenialKind` on a tool_result entry, as an outcome. */
function recordedOutcome(entry: Json, isError: boolean): OriginalOutcome | undefined {
  const decision = entry.permissionDecision;
  if (!isObject(decision)) return undefined;
  const byPerson = decision.source !== undefined && decision.source !== "config";
  if (decision.decision === "accept") return byPerson ? "approved" : "allowed";
  if (decision.decision === "reject") {
    const kind = entry.toolDenialKind;
    if (kind === "permission-rule" || kind === "hook" || (typeof decision.reasonCode === "string" && decision.reasonCode.startsWith("rule:"))) return "denied";
    return "rejected";
  }
  return isError ? "failed" : "ran";
}

/** armature's own refusals, as its results word them (the agent and exec record no decision field). */
function textOutcome(text: string, isError: boolean): OriginalOutcome {
  if (!isError) return "ran";
  if (/\b(requires approval|needs approval|nobody (is there )?to approve|was not approved|haven't granted|rejected)\b/i.test(text)) return "rejected";
  if (/\b(denied by|has been denied|denied:|is denied)\b/i.test(text)) return "denied";
  if (/\bNo such tool available\b|\bunknown tool\b|InputValidationError|is not a tool\b/i.test(text)) return "failed";
  return "ran";
}

function resultText(block: Json): string {
  const c = block.content;
  if (typeof c === "string") return c;
  if (Array.isArray(c)) return c.map((b) => (isObject(b) && typeof b.text === "string" ? b.text : "")).join("\n");
  return "";
}

function formatOf(entry: Json): TranscriptFormat | undefined {
  if (entry.type === "system" && entry.subtype === "init") return "stream-json";
  if (typeof entry.sessionId === "string" && (typeof entry.version === "string" || typeof entry.userType === "string")) return "reference";
  if (typeof entry.session_id === "string" && typeof entry.uuid === "string") return "armature";
  if (typeof entry.sessionId === "string" && typeof entry.uuid === "string") return "armature";
  return undefined;
}

/**
 * Every tool call of one transcript file, each once its result has been seen (or at the end).
 * Malformed and oversized lines, a cut last line and an unreadable file are problems, never
 * exceptions.
 */
export async function* readTranscriptCalls(file: string, options: ReadOptions = {}): AsyncGenerator<TranscriptItem> {
  const maxLine = options.maxLineBytes ?? DEFAULT_MAX_LINE;
  const maxPending = options.maxPending ?? DEFAULT_MAX_PENDING;
  const pending = new Map<string, TranscriptCall>();
  let format: TranscriptFormat | undefined;
  let cwd: string | undefined;
  let mode: string | undefined;
  let lineNo = 0;
  let messages = 0;
  try {
    for await (const { text, bytes, complete } of boundedLines(file, maxLine)) {
      lineNo++;
      if (text === undefined) {
        yield { kind: "problem", problem: { file, line: lineNo, kind: "oversized-line", message: `line ${lineNo} is ${bytes} bytes, over the ${maxLine}-byte limit: skipped` } };
        continue;
      }
      const trimmed = text.trim();
      if (trimmed === "") continue;
      let entry: unknown;
      try {
        entry = JSON.parse(trimmed);
      } catch (err) {
        const kind = complete ? "malformed-line" : "truncated";
        const message = complete ? `line ${lineNo} is not JSON (${(err as Error).message})` : `the last line (${lineNo}) is cut off`;
        yield { kind: "problem", problem: { file, line: lineNo, kind, message } };
        continue;
      }
      if (!isObject(entry)) {
        yield { kind: "problem", problem: { file, line: lineNo, kind: "malformed-line", message: `line ${lineNo} is not a JSON object` } };
        continue;
      }
      format ??= formatOf(entry);
      if (entry.type === "system" && entry.subtype === "init") {
        cwd = str(entry.cwd) ?? cwd;
        mode = str(entry.permissionMode) ?? mode;
        continue;
      }
      cwd = str(entry.cwd) ?? cwd;
      mode = str(entry.permissionMode) ?? mode;
      const message = isObject(entry.message) ? entry.message : undefined;
      if (!message || !Array.isArray(message.content)) continue;
      const role = message.role ?? entry.type;
      messages++;
      if (role === "assistant") {
        for (const block of message.content as unknown[]) {
          if (!isObject(block) || block.type !== "tool_use" || typeof block.name !== "string") continue;
          const id = str(block.id) ?? `${file}:${lineNo}:${pending.size}`;
          const call: TranscriptCall = {
            file,
            line: lineNo,
            toolUseId: id,
            tool: block.name,
            input: block.input,
            sidechain: entry.isSidechain === true,
            outcome: "no-result",
            ...(cwd !== undefined ? { cwd } : {}),
            ...(mode !== undefined ? { recordedMode: mode } : {}),
          };
          pending.set(id, call);
          if (pending.size > maxPending) {
            const [oldest] = pending.keys();
            const call = pending.get(oldest!)!;
            pending.delete(oldest!);
            yield { kind: "call", call };
          }
        }
      } else if (role === "user") {
        for (const block of message.content as unknown[]) {
          if (!isObject(block) || block.type !== "tool_result" || typeof block.tool_use_id !== "string") continue;
          const call = pending.get(block.tool_use_id);
          if (!call) continue;
          pending.delete(block.tool_use_id);
          const isError = block.is_error === true;
          call.outcome = recordedOutcome(entry, isError) ?? textOutcome(resultText(block), isError);
          yield { kind: "call", call };
        }
      }
    }
  } catch (err) {
    yield { kind: "problem", problem: { file, kind: "unreadable", message: `cannot read ${file}: ${(err as Error).message}` } };
  }
  for (const call of pending.values()) yield { kind: "call", call };
  if (lineNo > 0 && messages === 0) {
    yield { kind: "problem", problem: { file, kind: "not-a-transcript", message: `${file} has no user or assistant messages` } };
  }
  yield { kind: "file", file, format: format ?? "unknown", lines: lineNo };
}
