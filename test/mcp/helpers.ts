import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";

export const FIXTURE = resolve(import.meta.dirname, "../fixtures/mcp-server.mjs");

export interface HttpFixture {
  url: string;
  port: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts the fixture server over HTTP (or legacy SSE) on 127.0.0.1 and waits for its port. */
export async function startHttpFixture(kind: "http" | "sse" = "http", extra: string[] = []): Promise<HttpFixture> {
  const child = spawn(process.execPath, [FIXTURE, `--${kind}`, "0", ...extra], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<number>((ok, fail) => {
    const rl = createInterface({ input: child.stdout! });
    rl.once("line", (line) => ok((JSON.parse(line) as { port: number }).port));
    child.once("exit", (code) => fail(new Error(`fixture exited with ${code}`)));
  });
  return {
    port,
    url: kind === "http" ? `http://127.0.0.1:${port}/mcp` : `http://127.0.0.1:${port}/sse`,
    child,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

export function tempDir(prefix = "armature-mcp-"): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export { alive } from "../hook-helpers.js";

export async function waitFor(check: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("condition not met in time");
}
