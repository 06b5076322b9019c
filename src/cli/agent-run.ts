import { runAgent } from "../agent/run-agent.js";
import type { RunAgentOptions } from "../agent/types.js";
import { AgentOutput, type InitInfo, type OutputFormat } from "./agent-output.js";
import type { CliIO } from "./io.js";

/**
 * `-p`: one prompt to the end. Ctrl-C aborts the run (the HTTP stream and running tools); the
 * result is still written. Exit code 0 on success, 1 when the result is an error.
 */
export async function runAgentOnce(options: RunAgentOptions, io: CliIO, format: OutputFormat, info: InitInfo): Promise<number> {
  const output = new AgentOutput(io, format, info);
  const controller = new AbortController();
  const onInterrupt = (): void => controller.abort(new Error("interrupted"));
  process.once("SIGINT", onInterrupt);
  output.init();
  try {
    let isError = true;
    for await (const event of runAgent({ ...options, signal: controller.signal })) {
      output.event(event);
      if (event.type === "result") isError = event.result.is_error;
    }
    return isError ? 1 : 0;
  } finally {
    process.removeListener("SIGINT", onInterrupt);
  }
}
