// The session's transcript: JSON Lines of the turns (each assistant tool_use turn, then its
// tool_result blocks), in the shape of the reference agent's transcript entries. Hooks get its
// path as `transcript_path`; it is set only once the file exists.
import { randomUUID } from "node:crypto";
import { appendFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { SessionState, ToolResultBlock, ToolUseBlock } from "../tool/types.js";

export const TRANSCRIPT_FILE = "transcript.jsonl";

export class TranscriptWriter {
  private parentUuid: string | null = null;
  private chain: Promise<void> = Promise.resolve();
  readonly path: string;

  constructor(private readonly session: SessionState) {
    this.path = join(session.dir, TRANSCRIPT_FILE);
  }

  /** Appends one entry; entries are written in the order they were asked for. */
  append(role: "assistant", content: readonly ToolUseBlock[], cwd: string): Promise<void>;
  append(role: "user", content: readonly ToolResultBlock[], cwd: string): Promise<void>;
  append(role: "assistant" | "user", content: readonly (ToolUseBlock | ToolResultBlock)[], cwd: string): Promise<void> {
    if (this.session.transcriptByAgentLoop) return this.chain;
    const uuid = randomUUID();
    const entry = {
      type: role,
      uuid,
      parentUuid: this.parentUuid,
      sessionId: this.session.id,
      timestamp: new Date().toISOString(),
      cwd,
      message: { role, content },
    };
    this.parentUuid = uuid;
    const line = `${JSON.stringify(entry)}\n`;
    this.chain = this.chain.then(async () => {
      await mkdir(this.session.dir, { recursive: true });
      await appendFile(this.path, line, { mode: 0o600 });
      this.session.transcriptPath = this.path;
    });
    return this.chain;
  }
}
