// A Glob with many matches starts the stat helper threads (src/tools/glob/stat-pool.ts); once its
// result is out, nothing of it may keep `exec`, `mcp serve` or `agent -p` running at the end of
// their input. 100,000 matches, far past the 2,048 from which the helpers take part.
import { spawn } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, openSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startExec } from "./exec-process.js";
import { INITIALIZE, startRawServer } from "./mcp/raw-stdio.js";
import { anthropicReply, startMockModelServer } from "./mock-model-server.js";

const BIN = resolve(import.meta.dirname, "../bin/armature.js");
const MATCHES = 100_000;
/** Far above the time any of them needs to exit: only a process that never exits fails. */
const EXIT_BOUND_MS = 30_000;
const SUMMARY = `(Showing 100 of ${MATCHES} matching files; ${MATCHES - 100} more are not listed.`;

let tree: string;
beforeAll(() => {
  tree = mkdtempSync(join(tmpdir(), "armature-glob-exit-"));
  for (let d = 0; d < 100; d++) {
    const dir = join(tree, `d${d}`);
    mkdirSync(dir);
    for (let f = 0; f < MATCHES / 100; f++) closeSync(openSync(join(dir, `f${f}.txt`), "w"));
  }
}, 120_000);
afterAll(async () => {
  await rm(tree, { recursive: true, force: true });
});

const glob = { type: "tool_use", id: "g", name: "Glob", input: { pattern: "**/*.txt" } } as const;

/** Resolves to what the process exited with, or to "still running" once the bound has passed. */
function exitWithin<T>(exited: Promise<T>): Promise<T | "still running"> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<"still running">((r) => (timer = setTimeout(() => r("still running"), EXIT_BOUND_MS)));
  return Promise.race([exited, bound]).finally(() => clearTimeout(timer));
}

describe("a Glob of 100,000 matches does not keep the process alive", () => {
  it("exec: the result, then exit 0 at the end of stdin", async () => {
    const exec = startExec(["--cwd", tree]);
    const reply = (await exec.turn([glob])) as { content: Array<{ content: string; is_error?: boolean }> };
    expect(reply.content[0]!.is_error).toBeFalsy();
    expect(reply.content[0]!.content).toContain(SUMMARY);
    const exit = await exitWithin(exec.end());
    if (exit === "still running") exec.child.kill("SIGKILL");
    expect(exit).toMatchObject({ code: 0 });
  }, 90_000);

  it("mcp serve (stdio): the result, then exit at the end of stdin", async () => {
    const server = startRawServer(tree);
    try {
      await server.request(1, "initialize", INITIALIZE);
      await server.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
      const reply = await server.request(2, "tools/call", { name: "Glob", arguments: glob.input });
      expect(JSON.stringify(reply)).toContain(SUMMARY);
      const exited = new Promise<number | null>((r) => (server.exited() ? r(server.child.exitCode) : server.child.once("exit", (code) => r(code))));
      server.child.stdin!.end();
      expect(await exitWithin(exited)).toBe(0);
    } finally {
      await server.stop();
    }
  }, 90_000);

  it("agent -p: the answer after the Glob, then exit 0", async () => {
    const model = await startMockModelServer([anthropicReply([glob]), anthropicReply([{ type: "text", text: "found them" }])]);
    try {
      const child = spawn(process.execPath, [BIN, "agent", "-p", "list the text files", "--cwd", tree, "--output-format", "json", "--base-url", model.url], {
        env: { ...process.env, HOME: tree, ANTHROPIC_API_KEY: "test-key" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      child.stdout.on("data", (d: Buffer) => (out += d.toString()));
      const exited = new Promise<number | null>((r) => child.once("close", (code) => r(code)));
      const exit = await exitWithin(exited);
      if (exit === "still running") child.kill("SIGKILL");
      expect(exit, out).toBe(0);
      expect(out).toContain("found them");
      // The model's second request carried the Glob's result.
      expect(JSON.stringify(model.requests[1]?.body)).toContain(SUMMARY);
    } finally {
      await model.close();
    }
  }, 90_000);
});
