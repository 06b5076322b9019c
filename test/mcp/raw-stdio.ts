// A raw line client for `armature mcp serve` over stdio: writes any bytes, reads every line the
// server answers, and tells when the process exits. The fuzz and the robustness tests use it.
import { spawn, type ChildProcess } from "node:child_process";
import { resolve } from "node:path";
import { createInterface } from "node:readline";

const BIN = resolve(import.meta.dirname, "../../bin/armature.js");

export interface RawServer {
  child: ChildProcess;
  /** Parsed lines the server wrote, in order. */
  replies: Array<Record<string, unknown>>;
  stderr(): string;
  exited(): boolean;
  write(data: string | Buffer): Promise<void>;
  /** Waits until a reply matches (or `ms` passes: then throws with what came). */
  waitFor(match: (r: Record<string, unknown>) => boolean, ms?: number): Promise<Record<string, unknown>>;
  /** Sends a request and waits for the reply with its id. */
  request(id: number, method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

export const INITIALIZE = { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } };

export function startRawServer(cwd: string, extra: string[] = []): RawServer {
  const child = spawn(process.execPath, [BIN, "mcp", "serve", "--cwd", cwd, ...extra], { stdio: ["pipe", "pipe", "pipe"] });
  const replies: Array<Record<string, unknown>> = [];
  let err = "";
  let exited = false;
  const waiters = new Set<() => void>();
  child.once("exit", () => {
    exited = true;
    for (const w of waiters) w();
  });
  child.stderr!.on("data", (d: Buffer) => (err = (err + d.toString("utf8")).slice(-20_000)));
  child.stdin!.on("error", () => undefined);
  createInterface({ input: child.stdout! }).on("line", (line) => {
    try {
      replies.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      replies.push({ unparsable: line });
    }
    for (const w of waiters) w();
  });
  const server: RawServer = {
    child,
    replies,
    stderr: () => err,
    exited: () => exited,
    write: (data) => new Promise((ok) => (child.stdin!.write(data) ? ok() : child.stdin!.once("drain", ok))),
    waitFor: (match, ms = 10_000) =>
      new Promise((ok, fail) => {
        const check = (): void => {
          const found = replies.find(match);
          if (found) {
            waiters.delete(check);
            clearTimeout(timer);
            ok(found);
          } else if (exited) {
            waiters.delete(check);
            clearTimeout(timer);
            fail(new Error(`the server exited; stderr: ${err}`));
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          fail(new Error(`no matching reply within ${ms} ms; last replies: ${JSON.stringify(replies.slice(-3)).slice(0, 2_000)}`));
        }, ms);
        waiters.add(check);
        check();
      }),
    async request(id, method, params) {
      await server.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) })}\n`);
      return server.waitFor((r) => r.id === id && ("result" in r || "error" in r));
    },
    async stop() {
      if (exited) return;
      const done = new Promise((r) => child.once("exit", r));
      child.kill("SIGKILL");
      await done;
    },
  };
  return server;
}

/** A small seeded generator (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const METHODS = ["tools/list", "tools/call", "ping", "initialize", "resources/list", "prompts/get", "nope/x", "", "notifications/cancelled", "notifications/initialized", "completion/complete", "logging/setLevel"];
const VALUES: unknown[] = [null, true, 0, -1, 1.5, 2 ** 53, "", "x", "\u0000", "\ud800", [], {}, [1, [2, [3]]], { a: { b: {} } }, "A".repeat(300)];

/**
 * One fuzzed stdio line (with its newline, or several lines glued), seeded: broken JSON, wrong
 * shapes, odd ids, unknown methods, bad params, binary bytes, huge lines, real requests.
 */
export function fuzzLine(r: () => number, id: number, bigLineBytes: number): string | Buffer {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const value = (): unknown => pick(VALUES);
  const kind = Math.floor(r() * 12);
  switch (kind) {
    case 0:
      return `${pick(["{", "}", "[", '{"jsonrpc":', "nul", '{"a":1', "\u00ff\u00fe", "\t", "{}}"])}\n`;
    case 1:
      return Buffer.concat([Buffer.from(Array.from({ length: 1 + Math.floor(r() * 64) }, () => Math.floor(r() * 256)).filter((b) => b !== 0x0a)), Buffer.from("\n")]);
    case 2:
      return `${JSON.stringify(value())}\n`;
    case 3:
      return `${JSON.stringify({ jsonrpc: pick(["2.0", "1.0", 2, null]), id: pick([id, `s${id}`, null, 1.5, [], {}]), method: pick(METHODS) })}\n`;
    case 4:
      return `${JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: pick([{}, { name: value() }, { name: "Read", arguments: value() }, { name: "Read", arguments: { file_path: value() } }, { name: "Glob", arguments: { pattern: "*" } }, { name: "Bash", arguments: { command: "true" } }]) })}\n`;
    case 5:
      return `${JSON.stringify({ jsonrpc: "2.0", id, method: pick(METHODS), params: value() })}\n`;
    case 6:
      return `${JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list", extra: value() })}\n`;
    case 7:
      return `${JSON.stringify({ jsonrpc: "2.0", id, result: value() })}\n${JSON.stringify({ jsonrpc: "2.0", id, error: { code: value(), message: value() } })}\n`;
    case 8:
      return `${JSON.stringify({ jsonrpc: "2.0", method: pick(METHODS), params: { _meta: { progressToken: value() } } })}\n`;
    case 9:
      return r() < 0.1 ? `{"jsonrpc":"2.0","id":${id},"method":"ping","params":{"pad":"${"x".repeat(bigLineBytes)}"}}\n` : `\r\n\n   \n`;
    case 10:
      return `${JSON.stringify({ jsonrpc: "2.0", id, method: "ping" })}\r\n`;
    default:
      return `${"[".repeat(1 + Math.floor(r() * 5_000))}\n`;
  }
}

/** Runs `count` fuzzed lines from `seed` into one server; returns what a final ping got. */
export async function fuzzStdioServer(cwd: string, seed: number, count: number, bigLineBytes = 2 * 1024 * 1024): Promise<{ exited: boolean; pingAnswered: boolean; replies: number; stderr: string }> {
  const server = startRawServer(cwd, ["--max-message-mb", "1"]);
  try {
    await server.request(0, "initialize", INITIALIZE);
    await server.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    const r = rng(seed);
    for (let i = 0; i < count && !server.exited(); i++) await server.write(fuzzLine(r, 1_000 + i, bigLineBytes));
    let pingAnswered = false;
    try {
      const pong = await server.request(999_999, "ping", {});
      pingAnswered = "result" in pong;
    } catch {
      pingAnswered = false;
    }
    return { exited: server.exited(), pingAnswered, replies: server.replies.length, stderr: server.stderr() };
  } finally {
    await server.stop();
  }
}
