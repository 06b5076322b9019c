// Helpers for the hook tests: real bash scripts written into a temp dir.
import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createHookRunner, type HookRunnerOptions } from "../src/hooks/runner.js";
import type { HookEventName, HookInput } from "../src/hooks/types.js";

/** Writes an executable bash script and returns its absolute path. */
export async function script(dir: string, name: string, body: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, `#!/usr/bin/env bash\n${body}\n`);
  await chmod(path, 0o755);
  return path;
}

export function runnerFor(
  dir: string,
  event: HookEventName,
  handlers: object[],
  matcher?: string,
  options: Partial<HookRunnerOptions> = {},
): ReturnType<typeof createHookRunner> {
  const group: Record<string, unknown> = { hooks: handlers };
  if (matcher !== undefined) group.matcher = matcher;
  return createHookRunner([{ source: "test-settings.json", config: { [event]: [group] } }], { projectDir: dir, killGraceMs: 300, ...options });
}

export function cmd(command: string, extra: object = {}): object {
  return { type: "command", command, ...extra };
}

export function toolInput(event: HookEventName, extra: Partial<HookInput> = {}): HookInput {
  return {
    session_id: "sess-1",
    transcript_path: "/tmp/sess-1/transcript.jsonl",
    cwd: "/work",
    hook_event_name: event,
    permission_mode: "default",
    tool_name: "Bash",
    tool_input: { command: "ls" },
    tool_use_id: "toolu_1",
    ...extra,
  };
}

/** True while a process with this pid exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits (bounded) until `check` holds; for processes that are being killed asynchronously. */
export async function eventually(check: () => boolean, attempts = 100): Promise<boolean> {
  for (let i = 0; i < attempts; i++) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}
