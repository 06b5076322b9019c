import { createInterface, type Interface } from "node:readline";
import { runHooks } from "../hooks/runner.js";
import { hookCommonInput } from "../pipeline/run-tool-use.js";
import { runAgent } from "../agent/run-agent.js";
import type { RunAgentOptions } from "../agent/types.js";
import type { AgentMessage } from "../providers/model.js";
import type { InitInfo } from "./agent-output.js";
import type { CliIO } from "./io.js";

/** Input summary of a tool call for its progress line. */
function callSummary(input: unknown): string {
  const text = JSON.stringify(input) ?? "";
  return text.length > 100 ? `${text.slice(0, 97)}...` : text;
}

/**
 * The plain interactive loop: a prompt per line, streamed text, one line per tool call,
 * approvals asked on the same terminal (y / n / always). Ctrl-C interrupts the running turn
 * (twice when idle exits); Ctrl-D exits.
 */
export async function interactiveLoop(run: Omit<RunAgentOptions, "prompt">, io: CliIO, info: InitInfo): Promise<number> {
  const rl: Interface = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  const lines: string[] = [];
  let waiting: ((line: string | undefined) => void) | undefined;
  let closed = false;
  rl.on("line", (line) => {
    if (waiting) {
      const w = waiting;
      waiting = undefined;
      w(line);
    } else lines.push(line);
  });
  rl.on("close", () => {
    closed = true;
    waiting?.(undefined);
  });
  const ask = (prompt: string): Promise<string | undefined> => {
    rl.setPrompt(prompt);
    rl.prompt();
    if (lines.length > 0) return Promise.resolve(lines.shift());
    if (closed) return Promise.resolve(undefined);
    return new Promise((resolve) => (waiting = resolve));
  };
  // Approvals go through the same line reader as prompts.
  io.question = async (prompt) => (await ask(prompt)) ?? "n";

  let controller: AbortController | undefined;
  let idleInterrupts = 0;
  rl.on("SIGINT", () => {
    if (controller && !controller.signal.aborted) {
      controller.abort(new Error("interrupted"));
      io.stderr.write("\n[interrupted]\n");
      return;
    }
    if (++idleInterrupts >= 2) rl.close();
    else io.stderr.write("\n(Ctrl-C again or Ctrl-D to exit)\n");
  });

  io.stderr.write(`armature agent · ${info.provider} ${info.model} · ${info.cwd}\nsession ${info.sessionId} · Ctrl-C interrupts, Ctrl-D exits\n`);
  let messages: AgentMessage[] = [...(run.messages ?? [])];
  let first = true;
  for (;;) {
    const line = await ask("\n> ");
    if (line === undefined) break;
    if (line.trim() === "") continue;
    idleInterrupts = 0;
    controller = new AbortController();
    let atLineStart = true;
    for await (const event of runAgent({ ...run, messages, prompt: line, signal: controller.signal, sessionStart: first ? undefined : "none", sessionEnd: false })) {
      if (event.type === "text_delta") {
        io.stdout.write(event.text);
        atLineStart = event.text.endsWith("\n");
      } else if (event.type === "assistant_block" && event.block.type === "tool_use") {
        io.stderr.write(`${atLineStart ? "" : "\n"}⏺ ${event.block.name} ${callSummary(event.block.input)}\n`);
        atLineStart = true;
      } else if (event.type === "tool_result" && event.result.is_error) {
        const text = typeof event.result.content === "string" ? event.result.content : "error";
        io.stderr.write(`  ⎿ ${text.split("\n")[0]!.slice(0, 160)}\n`);
      } else if (event.type === "notice") {
        io.stderr.write(`armature: ${event.text}\n`);
      } else if (event.type === "result") {
        if (!atLineStart) io.stdout.write("\n");
        if (event.result.is_error && event.result.terminal_reason !== "aborted") io.stderr.write(`armature: ${event.result.error ?? event.result.subtype}\n`);
        messages = event.result.messages;
      }
    }
    controller = undefined;
    first = false;
  }
  rl.close();
  const session = run.session;
  await runHooks(run.hooks, "SessionEnd", { ...hookCommonInput(session.context), reason: "prompt_input_exit" });
  return 0;
}
