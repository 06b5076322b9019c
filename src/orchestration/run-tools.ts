import type { PreparedCall } from "../pipeline/prepare.js";
import { runToolUse, type PipelineServices, type ToolCallOutcome } from "../pipeline/run-tool-use.js";
import type { ToolProgress, ToolUseContext } from "../tool/types.js";
import { mapWithLimit } from "./concurrency.js";
import { partitionToolCalls } from "./partition.js";

export interface RunToolsOptions {
  maxConcurrency: number;
  onProgress?: (progress: ToolProgress) => void;
}

export interface RunToolsResult {
  /** One outcome per call, in the model's tool_use order. */
  outcomes: ToolCallOutcome[];
  /** The context after every context modifier was applied. */
  context: ToolUseContext;
}

/**
 * Runs prepared calls batch by batch. A serial call's context modifier applies before the
 * next call; a concurrent batch's modifiers are queued and applied in order after the batch.
 */
export async function runTools(
  calls: readonly PreparedCall[],
  context: ToolUseContext,
  services: PipelineServices,
  options: RunToolsOptions,
): Promise<RunToolsResult> {
  const outcomes: ToolCallOutcome[] = [];
  let current = context;
  for (const batch of partitionToolCalls(calls)) {
    if (!batch.concurrent || batch.calls.length === 1) {
      for (const call of batch.calls) {
        const outcome = await runToolUse(call, current, services, options.onProgress);
        if (outcome.contextModifier) current = outcome.contextModifier(current);
        outcomes.push(outcome);
      }
      continue;
    }
    const ctx = current;
    const results = await mapWithLimit(batch.calls.length, options.maxConcurrency, (i) =>
      runToolUse(batch.calls[i]!, ctx, services, options.onProgress),
    );
    for (const outcome of results) {
      if (outcome.contextModifier) current = outcome.contextModifier(current);
      outcomes.push(outcome);
    }
  }
  return { outcomes, context: current };
}
