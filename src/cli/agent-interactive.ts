import { createInterface, type Interface } from "node:readline";
import { runHooks } from "../hooks/runner.js";
import { hookCommonInput } from "../pipeline/run-tool-use.js";
import { runAgent } from "../agent/run-agent.js";
import type { RunAgentOptions } from "../agent/types.js";
import type { AgentMessage } from "../providers/model.js";
import type { InitInfo } from "./agent-output.js";
import type { CliIO } from "./io.js";
import { callLine, paint, resultLines, Spinner, terminalStyle, unwrapError } from "./terminal-view.js";

/**
 * The interactive loop: a prompt per line, streamed text, each tool call on one line with a short
 * result under it (a coloured diff for edits), a spinner while the model or a tool works,
 * approvals asked on the same terminal (y / n / always). Ctrl-C interrupts the running turn, a
 * second one exits; Ctrl-D exits. Colours follow NO_COLOR and the terminal (see terminal-view).
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
  /** The next line; undefined at the end, or once `signal` aborts (a line typed after goes to the next reader). */
  const ask = (prompt: string, signal?: AbortSignal): Promise<string | undefined> => {
    if (signal?.aborted) return Promise.resolve(undefined);
    rl.setPrompt(prompt);
    rl.prompt();
    if (lines.length > 0) return Promise.resolve(lines.shift());
    if (closed) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const answer = (line: string | undefined): void => {
        signal?.removeEventListener("abort", abandon);
        resolve(line);
      };
      const abandon = (): void => {
        if (waiting === answer) waiting = undefined;
        resolve(undefined);
      };
      signal?.addEventListener("abort", abandon, { once: true });
      waiting = answer;
    });
  };
  const style = terminalStyle(io.isTTY);
  const spinner = new Spinner(io.stderr, io.isTTY && process.env.TERM !== "dumb", style);
  /** Everything shown goes through here: the spinner is erased first. */
  const show = (stream: "stdout" | "stderr", text: string): void => {
    spinner.stop();
    io[stream].write(text);
  };
  // Approvals go through the same line reader as prompts; an interrupted turn abandons its question.
  io.question = async (prompt, signal) => {
    spinner.stop();
    const answer = (await ask(prompt, signal)) ?? "n";
    if (controller && !controller.signal.aborted) spinner.start();
    return answer;
  };

  let controller: AbortController | undefined;
  // Ctrl-C presses since the last prompt line: the first interrupts a running turn, the second exits.
  let interrupts = 0;
  rl.on("SIGINT", () => {
    interrupts++;
    if (controller && !controller.signal.aborted) {
      controller.abort(new Error("interrupted"));
      show("stderr", "\n[interrupted] (Ctrl-C again to exit)\n");
      return;
    }
    if (interrupts >= 2) rl.close();
    else show("stderr", "\n(Ctrl-C again or Ctrl-D to exit)\n");
  });

  io.stderr.write(`armature agent · ${info.provider} ${info.model} · ${info.cwd}\nsession ${info.sessionId} · Ctrl-C interrupts, Ctrl-D exits\n`);
  let messages: AgentMessage[] = [...(run.messages ?? [])];
  let first = true;
  for (;;) {
    const line = await ask("\n> ");
    if (line === undefined) break;
    if (line.trim() === "") continue;
    interrupts = 0;
    controller = new AbortController();
    let atLineStart = true;
    /** The call whose line was shown last: a result of another one names its call. */
    let lastCall: string | undefined;
    const calls = new Map<string, string>();
    spinner.start();
    for await (const event of runAgent({ ...run, messages, prompt: line, signal: controller.signal, sessionStart: first ? undefined : "none", sessionEnd: false })) {
      if (event.type === "text_delta") {
        show("stdout", event.text);
        atLineStart = event.text.endsWith("\n");
      } else if (event.type === "assistant_block" && event.block.type === "tool_use") {
        const call = callLine(event.block.name, event.block.input, info.cwd);
        calls.set(event.block.id, call);
        lastCall = event.block.id;
        show("stderr", `${atLineStart ? "" : "\n"}${paint(style, "green", "⏺")} ${paint(style, "bold", call)}\n`);
        atLineStart = true;
        spinner.start();
      } else if (event.type === "tool_result") {
        const id = event.result.tool_use_id;
        const [summary, ...rest] = resultLines(event.toolName, event.result, event.outcome?.data, style);
        const which = id !== lastCall && calls.has(id) ? `${calls.get(id)}: ` : "";
        show("stderr", `  ⎿  ${which}${summary}\n${rest.map((l) => `     ${l}\n`).join("")}`);
        spinner.start();
      } else if (event.type === "notice") {
        show("stderr", `armature: ${event.text}\n`);
      } else if (event.type === "result") {
        if (!atLineStart) show("stdout", "\n");
        spinner.stop();
        if (event.result.is_error && event.result.terminal_reason !== "aborted") show("stderr", paint(style, "red", `armature: ${unwrapError(event.result.error ?? event.result.subtype)}\n`));
        messages = event.result.messages;
      }
    }
    spinner.stop();
    controller = undefined;
    first = false;
  }
  rl.close();
  const session = run.session;
  await runHooks(run.hooks, "SessionEnd", { ...hookCommonInput(session.context), reason: "prompt_input_exit" });
  return 0;
}
