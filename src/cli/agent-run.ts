import { runAgent } from "../agent/run-agent.js";
import type { AgentResult, RunAgentOptions } from "../agent/types.js";
import { runHooks } from "../hooks/runner.js";
import { hookCommonInput } from "../pipeline/run-tool-use.js";
import { findTaskRegistry, untilSettled } from "../tasks/registry.js";
import { AgentOutput, type InitInfo, type OutputFormat, type ResultExtras } from "./agent-output.js";
import { usageCostUsd } from "./agent/prices.js";
import type { Usage } from "../providers/model.js";
import type { StructuredOutputHolder } from "./agent/structured-output.js";
import type { CliIO } from "./io.js";

export interface RunOnceExtras {
  /** `--json-schema`: the value the model hands in becomes `structured_output`. */
  structured?: StructuredOutputHolder | undefined;
  /** `--max-budget-usd`: stop once the cost passes it. */
  maxBudgetUsd?: number | undefined;
  /** Told how to abort the run (the process's signal handler stops it before the session closes). */
  onAbortable?(abort: (reason: string) => void): void;
}

/** How long `-p` waits, after its answer, for background work the model was promised to hear of. */
export const BACKGROUND_WAIT_MS = 10 * 60_000;

/**
 * `-p`: one prompt to the end. Ctrl-C aborts the run (the HTTP stream and running tools); the
 * result is still written. Exit code 0 on success, 1 when the result is an error.
 *
 * With stream-json, background work the model started and was told it would hear of (a command
 * run or moved to the background, a background agent) is waited for after the answer, as the
 * reference CLI does: the result is written, then, once that work has ended (at most BACKGROUND_WAIT_MS), its
 * notifications start one more run of their own — a new init line, the model's turn, a second
 * result. What still runs after the wait is stopped when the session closes.
 */
export async function runAgentOnce(options: RunAgentOptions, io: CliIO, format: OutputFormat, info: InitInfo, extras: RunOnceExtras = {}): Promise<number> {
  const output = new AgentOutput(io, format, info);
  const controller = new AbortController();
  const onInterrupt = (): void => controller.abort(new Error("interrupted"));
  extras.onAbortable?.((reason) => controller.abort(new Error(reason)));
  // With signal handling on, SIGINT is the session's clean exit (agent.ts), not an abort here.
  if (!io.handleSignals) process.once("SIGINT", onInterrupt);
  output.init();
  let cost = 0;
  let overBudget = false;
  const max = extras.maxBudgetUsd;
  // The budget is checked when a reply is complete, before its calls run (as the reference does).
  const budgetGate = max === undefined ? {} : { overBudget: (reply: Usage): boolean => cost + (usageCostUsd(options.model, reply) ?? 0) > max };
  // stream-json has the reference's shape for it (several results); text and json keep one
  // result, the loop giving the model its turn for that work within the run.
  const afterResult = format === "stream-json";
  let run: RunAgentOptions = { ...options, awaitBackground: !afterResult, sessionEnd: false, ...budgetGate };
  let code = 1;
  try {
    for (;;) {
      let result: AgentResult | undefined;
      for await (const event of runAgent({ ...run, signal: controller.signal })) {
        if (event.type === "assistant_message") cost += usageCostUsd(options.model, event.usage) ?? 0;
        if (event.type === "result") {
          result = event.result;
          overBudget = result.subtype === "error_max_budget_usd";
        }
        output.event(event, { holdResult: true });
      }
      if (!result) return (code = 1);
      const more: ResultExtras = {};
      if (overBudget) more.error = `stopped: the cost passed --max-budget-usd ${extras.maxBudgetUsd}`;
      else if (extras.structured?.given) more.structuredOutput = extras.structured.value;
      else if (extras.structured && !result.is_error) Object.assign(more, { subtype: "error_max_structured_output_retries", error: "the model did not hand in a value for --json-schema" });
      output.writeResult(result, more);
      code = result.is_error || more.subtype !== undefined ? 1 : 0;
      if (!afterResult || code !== 0 || extras.structured?.given) return code;
      const notes = await backgroundEnds(options, controller.signal);
      if (notes.length === 0) return code;
      // The reference: a new init line, then a turn whose prompt carries the notifications.
      output.init();
      run = { ...run, messages: result.messages, prompt: `<system-reminder>\n${notes.join("\n\n")}\n</system-reminder>`, sessionStart: "none" };
    }
  } finally {
    process.removeListener("SIGINT", onInterrupt);
    await runHooks(options.hooks, "SessionEnd", { ...hookCommonInput(options.session.context), reason: controller.signal.aborted ? "other" : "prompt_input_exit" });
  }
}

/** Waits for the main agent's background work (at most BACKGROUND_WAIT_MS, or the abort) and takes the notifications of what ended. */
async function backgroundEnds(options: RunAgentOptions, signal: AbortSignal): Promise<string[]> {
  const registry = findTaskRegistry(options.session.context);
  if (!registry) return [];
  const owner = options.session.context.agent.agentId;
  const running = registry.running().filter((t) => t.ownerAgentId === owner);
  if (running.length > 0) await untilSettled(Promise.all(running.map((t) => t.done)), { signal, timeoutMs: BACKGROUND_WAIT_MS });
  if (signal.aborted) return [];
  return registry.takeEndNotifications(owner);
}
