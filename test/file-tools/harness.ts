import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createSession, type Session, type SessionOptions } from "../../src/session/session.js";
import type { Tool, ToolResultBlock } from "../../src/tool/types.js";
import { toolUse } from "../helpers.js";

/** A session in `dir` with the given tools, permissions out of the way (the engine is tested elsewhere). */
export function fileSession(dir: string, tools: Tool[], extra: Partial<SessionOptions> = {}): Session {
  return createSession({ cwd: dir, tools, permissionMode: "bypassPermissions", ...extra });
}

/** One call through the whole pipeline; its tool_result block. */
export async function call(session: Session, name: string, input: Record<string, unknown>): Promise<ToolResultBlock> {
  const [block] = await session.runTurn([toolUse(name, input)]);
  return block!;
}

/** The text of a result that is a plain string (fails the test otherwise). */
export function text(block: ToolResultBlock): string {
  if (typeof block.content !== "string") throw new Error(`expected string content, got ${JSON.stringify(block.content).slice(0, 200)}`);
  return block.content;
}

/** A refusal before anything changed (a failed check), wrapped as the reference wraps it. */
export function errorText(message: string): string {
  return `<tool_use_error>${message}</tool_use_error>`;
}

/** A failure while the tool ran: the bare message, as the reference sends it. */
export function failureText(message: string): string {
  return message;
}

/**
 * The race suites' loop: `calls` calls to `name` while `racer` (a bash script) flips paths, then
 * the racer is stopped and the session closed. Counts the results that succeeded and failed.
 */
export async function callsDuringRace(
  session: Session,
  racer: string,
  calls: number,
  name: string,
  inputFor: (i: number) => Record<string, unknown>,
  onResult?: (block: ToolResultBlock) => void,
): Promise<{ ok: number; errors: number }> {
  // Its own process group, so a `cp` or `ln` in flight when it is stopped dies with it (a survivor
  // could still write into the folder the caller then removes).
  const child = spawn("bash", ["-c", `echo ready; ${racer}`], { stdio: ["ignore", "pipe", "ignore"], detached: true });
  const counts = { ok: 0, errors: 0 };
  try {
    // Calls made before the racer runs race nothing (a fast tool's 40 calls can end first).
    await new Promise<void>((resolve, reject) => {
      child.stdout.once("data", () => resolve());
      child.once("error", reject);
      child.once("exit", () => reject(new Error("the racer exited before it started")));
    });
    child.stdout.resume();
    for (let i = 0; i < calls; i++) {
      // 0–2 ms between calls: a fast tool's calls spread over many of the racer's rounds
      // instead of meeting the same state one after another.
      await new Promise((resolve) => setTimeout(resolve, i % 3));
      const block = await call(session, name, inputFor(i));
      onResult?.(block);
      if (block.is_error) counts.errors++;
      else counts.ok++;
    }
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once("exit", r));
      process.kill(-child.pid!, "SIGKILL");
      await exited;
    }
    await session.close();
  }
  return counts;
}

/** What appeared in `outside` besides `name`, or whether `name` no longer holds `seed`. */
export function outsideChanges(outside: string, name: string, seed: string): string[] {
  const changes: string[] = [];
  for (const n of readdirSync(outside)) {
    if (n !== name) changes.push(`${n} appeared`);
    else if (readFileSync(join(outside, n), "utf8") !== seed) changes.push(`${n} changed`);
  }
  return changes;
}
