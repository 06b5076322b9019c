import { afterEach, beforeEach } from "vitest";
import { existsSync, mkdtempSync, readFileSync, realpathSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { z } from "zod";
import { buildTool } from "../src/tool/build-tool.js";
import type { CliIO } from "../src/cli/io.js";
import type { Tool, ToolUseBlock } from "../src/tool/types.js";

export async function withTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), "armature-test-"));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `path` is the temp dir or inside it (where sandboxed commands may write), after resolving links (a missing path as it is). */
export function insideTempDir(path: string): boolean {
  const real = (p: string): string => (existsSync(p) ? realpathSync(p) : resolve(p));
  const tmp = real(tmpdir());
  const at = real(path);
  return at === tmp || at.startsWith(`${tmp}/`);
}

/**
 * A fresh folder outside the temp dir, for tests that check a write outside the working
 * directories fails: in /var/tmp, /tmp or the home, the first that is not the temp dir or inside
 * it (no test assumes where $TMPDIR is). The caller removes it.
 */
export function mkdtempOutsideTempDir(prefix: string): string {
  for (const base of ["/var/tmp", "/tmp", homedir()]) {
    try {
      if (!insideTempDir(base)) return mkdtempSync(join(realpathSync(base), prefix));
    } catch {
      // missing or not writable here: the next one
    }
  }
  throw new Error(`no writable folder outside the temp dir ${tmpdir()} for ${prefix}`);
}

export function toolUse(name: string, input: unknown, id = `toolu_${Math.random().toString(36).slice(2, 10)}`): ToolUseBlock {
  return { type: "tool_use", id, name, input };
}

/** A read-only, concurrency-safe tool that sleeps `ms` and echoes its input. */
export function sleepTool(name = "Sleep", options: { safe?: boolean } = {}): Tool {
  return buildTool({
    name,
    description: "Sleeps, then echoes.",
    inputSchema: z.object({ ms: z.number().int().min(0), text: z.string().optional() }),
    isConcurrencySafe: () => options.safe ?? true,
    isReadOnly: () => options.safe ?? true,
    async call(input, context) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, input.ms);
        context.abortController.signal.addEventListener("abort", () => {
          clearTimeout(timer);
          reject(new Error("aborted"));
        }, { once: true });
      });
      return { data: input.text ?? `slept ${input.ms}` };
    },
  });
}

export const noopTool: Tool = buildTool({
  name: "Noop",
  description: "Does nothing.",
  inputSchema: z.object({}),
  isConcurrencySafe: () => true,
  isReadOnly: () => true,
  call: async () => ({ data: "ok" }),
});

/** A CLI edge that captures what the CLI writes, with `stdin` as its input and no terminal. */
export function captureIO(stdin = ""): CliIO & { out: string; err: string } {
  const captured = {
    out: "",
    err: "",
    stdout: { write: (t: string) => (captured.out += t) },
    stderr: { write: (t: string) => (captured.err += t) },
    readStdin: async () => stdin,
    isTTY: false,
  };
  return captured;
}

const root = fileURLToPath(new URL("..", import.meta.url));
/**
 * The built file a package import resolves to, as a file URL: `"."` is `@armature-dev/armature`,
 * `"./ai-sdk"` its AI SDK entry, `"./openai-agents"` its Agents SDK entry (package.json `exports`). Tests of what a user gets use these.
 */
export function packageEntry(subpath: "." | "./ai-sdk" | "./openai-agents" = "."): string {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { exports: Record<string, { import: string }> };
  return pathToFileURL(join(root, pkg.exports[subpath]!.import)).href;
}

/**
 * Every test of the calling file runs with ANTHROPIC_API_KEY=test-key (the scripted model servers
 * take any key); the value the process had comes back after each test.
 */
export function useTestApiKey(): void {
  const saved = process.env.ANTHROPIC_API_KEY;
  beforeEach(() => {
    process.env.ANTHROPIC_API_KEY = "test-key";
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.ANTHROPIC_API_KEY;
    else process.env.ANTHROPIC_API_KEY = saved;
  });
}

/** A deferred, read-only tool shaped like an MCP server's (`mcp__notes__find`), for ToolSearch tests. */
export function notesFinderTool(): Tool {
  return buildTool({
    name: "mcp__notes__find",
    description: "Finds a note.",
    inputSchema: z.object({ q: z.string() }),
    shouldDefer: true,
    isReadOnly: () => true,
    call: async ({ q }) => ({ data: `note about ${q}` }),
  });
}
