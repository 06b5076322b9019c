import { runAgent } from "../agent/run-agent.js";
import type { AgentResult, RunAgentOptions } from "../agent/types.js";
import { AgentOutput, type InitInfo, type OutputFormat, type ResultExtras } from "./agent-output.js";
import { usageCostUsd } from "./agent/prices.js";
import type { StructuredOutputHolder } from "./agent/structured-output.js";
import type { CliIO } from "./io.js";

export interface RunOnceExtras {
  /** `--json-schema`: the value the model hands in becomes `structured_output`. */
  structured?: StructuredOutputHolder | undefined;
  /** `--max-budget-usd`: stop once the cost passes it. */
  maxBudgetUsd?: number | undefined;
}

/**
 * `-p`: one prompt to the end. Ctrl-C aborts the run (the HTTP stream and running tools); the
 * result is still written. Exit code 0 on success, 1 when the result is an error.
 */
export async function runAgentOnce(options: RunAgentOptions, io: CliIO, format: OutputFormat, info: InitInfo, extras: RunOnceExtras = {}): Promise<number> {
  const output = new AgentOutput(io, format, info);
  const controller = new AbortController();
  const onInterrupt = (): void => controller.abort(new Error("interrupted"));
  // With signal handling on, SIGINT is the session's clean exit (agent.ts), not an abort here.
  if (!io.handleSignals) process.once("SIGINT", onInterrupt);
  output.init();
  let cost = 0;
  let overBudget = false;
  try {
    let result: AgentResult | undefined;
    for await (const event of runAgent({ ...options, signal: controller.signal })) {
      if (event.type === "assistant_message" && extras.maxBudgetUsd !== undefined) {
        cost += usageCostUsd(options.model, event.usage) ?? 0;
        if (cost > extras.maxBudgetUsd && !overBudget) {
          overBudget = true;
          controller.abort(new Error("budget"));
        }
      }
      if (event.type === "result") result = event.result;
      output.event(event, { holdResult: true });
    }
    if (!result) return 1;
    const more: ResultExtras = {};
    if (overBudget) Object.assign(more, { subtype: "error_max_budget_usd", error: `stopped: the cost passed --max-budget-usd ${extras.maxBudgetUsd}` });
    else if (extras.structured?.given) more.structuredOutput = extras.structured.value;
    else if (extras.structured && !result.is_error) Object.assign(more, { subtype: "error_max_structured_output_retries", error: "the model did not hand in a value for --json-schema" });
    output.writeResult(result, more);
    return result.is_error || more.subtype !== undefined ? 1 : 0;
  } finally {
    process.removeListener("SIGINT", onInterrupt);
  }
}
