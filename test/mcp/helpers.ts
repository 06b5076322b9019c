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

export const BIN = resolve(import.meta.dirname, "../../bin/armature.js");

export interface ServedHttp {
  url: string;
  /** The token printed on stderr when one was generated. */
  token: string | undefined;
  /** stderr up to the "serving MCP at" line (and the token line). */
  stderr: string;
  stop(): Promise<void>;
}

/** Runs `armature mcp serve --http 0 …` and waits for the address it prints. */
export async function startServeHttp(args: string[]): Promise<ServedHttp> {
  const child = spawn(process.execPath, [BIN, "mcp", "serve", "--http", "0", ...args], { stdio: ["ignore", "ignore", "pipe"] });
  let url = "";
  let token: string | undefined;
  let stderr = "";
  // The lines come in this order: the address, then the generated token or the no-token warning.
  const last = args.includes("--token") ? /serving MCP at/ : args.includes("--no-token") ? /without a token/ : /bearer token: /;
  for await (const line of createInterface({ input: child.stderr! })) {
    stderr += `${line}\n`;
    url ||= /serving MCP at (\S+)/.exec(line)?.[1] ?? "";
    token ??= /bearer token: (\S+)/.exec(line)?.[1];
    if (last.test(line)) break;
  }
  if (!url) throw new Error(`mcp serve did not start: ${stderr}`);
  return {
    url,
    token,
    stderr,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    },
  };
}
