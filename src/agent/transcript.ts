import { randomUUID } from "node:crypto";
import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { readFile, readdir, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { AgentMessage } from "../providers/model.js";

/**
 * A conversation as JSON Lines, one line per message (`{type, uuid, timestamp, session_id,
 * message}`), appended as the conversation grows: what hooks get as `transcript_path`, and
 * what `--resume` reads back.
 */
export class TranscriptWriter {
  private readonly fds = new Map<string, number>();

  constructor(
    private readonly paths: readonly string[],
    private readonly sessionId: string,
  ) {}

  /**
   * Appends one line per message; each file is opened once (append mode) and kept open until
   * close(). The write is synchronous: one round's messages are one write per file, done
   * before the loop goes on (a crash after it loses nothing), and without the thread-pool
   * round trips that cost a short step more than the write itself.
   */
  async append(messages: readonly AgentMessage[]): Promise<void> {
    if (messages.length === 0) return;
    const timestamp = new Date().toISOString();
    let text = "";
    for (const message of messages) text += `${JSON.stringify({ type: message.role, uuid: randomUUID(), timestamp, session_id: this.sessionId, message })}\n`;
    const bytes = Buffer.from(text, "utf8");
    for (const path of this.paths) writeAll(this.fd(path), bytes);
  }

  /** Makes sure every file exists (hooks are told the path before the first message). */
  async touch(): Promise<void> {
    for (const path of this.paths) this.fd(path);
  }

  async close(): Promise<void> {
    const fds = [...this.fds.values()];
    this.fds.clear();
    for (const fd of fds) {
      try {
        closeSync(fd);
      } catch {
        // already closed: nothing is lost, every write was complete when append returned
      }
    }
  }

  private fd(path: string): number {
    let fd = this.fds.get(path);
    if (fd === undefined) {
      // The user's conversation: readable by the user only.
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      fd = openSync(path, "a", 0o600);
      this.fds.set(path, fd);
    }
    return fd;
  }
}

/** Writes every byte (a short write goes on from where it stopped; an error is thrown). */
function writeAll(fd: number, bytes: Buffer): void {
  for (let off = 0; off < bytes.length; ) {
    const n = writeSync(fd, bytes, off, bytes.length - off);
    if (n <= 0) throw new Error(`the transcript write stopped after ${off} of ${bytes.length} bytes`);
    off += n;
  }
}

export class TranscriptError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TranscriptError";
  }
}

/** The messages of a saved conversation; a bad line is an error naming the file and the line. */
export async function loadConversation(path: string): Promise<AgentMessage[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    throw new TranscriptError(`cannot read the saved conversation ${path}: ${(err as Error).message}`);
  }
  const messages: AgentMessage[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      // A last line cut by a crash mid-write is dropped; anything else is damage worth naming.
      if (i >= lines.length - 2) continue;
      throw new TranscriptError(`${path}: line ${i + 1} is not JSON`);
    }
    const message = (value as { message?: unknown }).message ?? value;
    const role = (message as { role?: unknown }).role;
    if ((role !== "user" && role !== "assistant") || !("content" in (message as object))) {
      throw new TranscriptError(`${path}: line ${i + 1} is not a user or assistant message`);
    }
    messages.push(message as AgentMessage);
  }
  return messages;
}

/** Where a session's conversation is saved: `<dir>/<id>.jsonl`. */
export function conversationFile(sessionsDir: string, id: string): string {
  return join(sessionsDir, `${id}.jsonl`);
}

/** The id of the most recently written conversation in `sessionsDir` (for `--continue`). */
export async function latestConversationId(sessionsDir: string): Promise<string | undefined> {
  let names: string[];
  try {
    names = (await readdir(sessionsDir)).filter((n) => n.endsWith(".jsonl"));
  } catch {
    return undefined;
  }
  let best: { id: string; mtime: number } | undefined;
  for (const name of names) {
    const s = await stat(join(sessionsDir, name)).catch(() => undefined);
    if (s?.isFile() && (!best || s.mtimeMs > best.mtime)) best = { id: name.slice(0, -".jsonl".length), mtime: s.mtimeMs };
  }
  return best?.id;
}
