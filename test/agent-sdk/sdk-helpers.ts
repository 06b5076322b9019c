// Drives `armature agent` with the official Claude Agent SDK's own `query()`, pointed at the
// built CLI through `pathToClaudeCodeExecutable`, against a scripted model on 127.0.0.1.
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { query, type Options, type SDKMessage, type SDKUserMessage } from "@anthropic-ai/claude-agent-sdk";
import { query as query332 } from "@anthropic-ai/claude-agent-sdk-0.3.332";

/**
 * The SDK releases the drop-in is tested with (the latest as the devDependency, 0.3.332 as an npm alias): 0.3.332 puts
 * external MCP servers on the command line, 0.3.337 sends them in `initialize`. Their `query()`
 * options and messages are the same shape for what these tests use.
 */
export const SDK_QUERIES = { "0.3.332": query332 as unknown as typeof query, "0.3.337": query } as const;
export type SdkVersion = keyof typeof SDK_QUERIES;
export const SDK_VERSIONS = Object.keys(SDK_QUERIES) as SdkVersion[];

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** The built CLI (`npm run build` first); a .js path, so the SDK starts it with node. */
export const ARMATURE_BIN = join(root, "bin", "armature.js");
/** The same CLI under the name the README gives SDK users. */
export const ARMATURE_AGENT_BIN = join(root, "bin", "armature-agent.js");

export interface SdkRun {
  messages: SDKMessage[];
  result: Extract<SDKMessage, { type: "result" }> | undefined;
  error?: Error;
  stderr: string;
}

/** A project folder and a HOME of its own (no user settings leak in). */
export async function sdkWorkspace(): Promise<{ cwd: string; home: string; cleanup: () => Promise<void> }> {
  const base = await mkdtemp(join(tmpdir(), "armature-sdk-"));
  const cwd = join(base, "project");
  const home = join(base, "home");
  await mkdir(cwd, { recursive: true });
  await mkdir(home, { recursive: true });
  return { cwd, home, cleanup: () => rm(base, { recursive: true, force: true }) };
}

export function sdkEnv(home: string, extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("ANTHROPIC_") && !k.startsWith("OPENAI_") && !k.startsWith("ARMATURE_")) env[k] = v;
  return { ...env, HOME: home, XDG_CONFIG_HOME: join(home, ".config"), ...extra };
}

/** Runs one `query()` to its end; collects every message (a thrown error is kept, not raised). */
export async function runQuery(
  prompt: string | AsyncIterable<SDKUserMessage>,
  options: Options,
  onMessage?: (m: SDKMessage, q: ReturnType<typeof query>) => void | Promise<void>,
  sdk: SdkVersion = "0.3.332",
): Promise<SdkRun> {
  let stderr = "";
  const q = SDK_QUERIES[sdk]({ prompt, options: { pathToClaudeCodeExecutable: ARMATURE_BIN, stderr: (t) => (stderr += t), ...options } });
  const run: SdkRun = { messages: [], result: undefined, stderr: "" };
  try {
    for await (const m of q) {
      run.messages.push(m);
      if (m.type === "result") run.result = m;
      await onMessage?.(m, q);
    }
  } catch (err) {
    run.error = err as Error;
  }
  run.stderr = stderr;
  return run;
}

export function userMessage(text: string): SDKUserMessage {
  return { type: "user", message: { role: "user", content: text }, parent_tool_use_id: null } as SDKUserMessage;
}

/** An input stream the test feeds: `push` a message, `end` the input. */
export function inputQueue(): { iterable: AsyncIterable<SDKUserMessage>; push: (m: SDKUserMessage) => void; end: () => void } {
  const items: SDKUserMessage[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  return {
    push(m) {
      items.push(m);
      wake?.();
    },
    end() {
      ended = true;
      wake?.();
    },
    iterable: {
      async *[Symbol.asyncIterator]() {
        for (;;) {
          if (items.length > 0) {
            yield items.shift()!;
            continue;
          }
          if (ended) return;
          await new Promise<void>((r) => (wake = r));
          wake = undefined;
        }
      },
    },
  };
}
