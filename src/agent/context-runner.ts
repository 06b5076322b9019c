import { TurnBudget } from "../budget/turn-budget.js";
import { resolveMaxConcurrency } from "../orchestration/concurrency.js";
import { StreamingToolExecutor } from "../orchestration/streaming-executor.js";
import type { PipelineServices } from "../pipeline/run-tool-use.js";
import type { ModelProvider } from "../providers/model.js";
import { anthropicToolDefinitions, type AnthropicToolDefinition } from "../registry/definitions.js";
import { isDeniedOutright } from "../registry/pool.js";
import type { RunTurnOptions, SessionStreamEvent } from "../session/session.js";
import { childAbortController, linkAbort, releaseAbortController } from "../tool/context.js";
import type { ToolUseBlock, ToolUseContext } from "../tool/types.js";
import type { AgentToolRunner } from "./types.js";

/** `context.extensions` key under which a session keeps its pipeline services (permissions engine, hooks, approver). */
export const PIPELINE_SERVICES_KEY = "armature.pipelineServices";
/** `context.extensions` key under which `runAgent` keeps the model it is running (for sub-agents). */
export const AGENT_MODEL_KEY = "armature.agentModel";

export interface AgentModelInfo {
  provider: ModelProvider;
  model: string;
  maxTokens?: number;
}

/** The pipeline services of the session a context belongs to (shared with its sub-agents). */
export function pipelineServicesOf(context: ToolUseContext): PipelineServices | undefined {
  return context.extensions.get(PIPELINE_SERVICES_KEY) as PipelineServices | undefined;
}

/** The model of the loop a context runs in (set by `runAgent`), for a sub-agent that uses the same. */
export function agentModelOf(context: ToolUseContext): AgentModelInfo | undefined {
  return context.extensions.get(AGENT_MODEL_KEY) as AgentModelInfo | undefined;
}

export interface ContextRunnerOptions {
  maxConcurrency?: number;
  turnBudgetChars?: number;
  abortSiblingsOnError?: boolean;
}

/**
 * Runs calls in a given context with given services: what a sub-agent's loop uses, around a
 * context from `createSubagentContext`. Context modifiers of its calls stay in its context.
 */
export function createContextRunner(context: ToolUseContext, services: PipelineServices, options: ContextRunnerOptions = {}): AgentToolRunner {
  let current = context;
  const maxConcurrency = resolveMaxConcurrency(options.maxConcurrency);
  return {
    get context() {
      return current;
    },
    toolDefinitions(): Promise<AnthropicToolDefinition[]> {
      const visible = current.options.tools.filter((t) => !isDeniedOutright(t, current.permissionContext));
      return anthropicToolDefinitions(visible, current);
    },
    async *stream(blocks: AsyncIterable<ToolUseBlock>, turnOptions?: RunTurnOptions): AsyncGenerator<SessionStreamEvent> {
      const controller = childAbortController(context.abortController);
      const unlink = turnOptions?.signal ? linkAbort(turnOptions.signal, controller) : () => {};
      const executor = new StreamingToolExecutor({ ...current, abortController: controller }, services, {
        maxConcurrency,
        abortSiblingsOnError: options.abortSiblingsOnError,
        ownsController: true,
      });
      let feedError: unknown;
      const feeding = (async () => {
        try {
          for await (const block of blocks) executor.addTool(block);
        } catch (err) {
          feedError = err;
          executor.discard();
          return;
        }
        executor.done();
      })();
      const budget = new TurnBudget(current.session.dir, options.turnBudgetChars);
      try {
        for await (const event of executor.events()) {
          if (event.type === "progress") {
            yield event;
            continue;
          }
          event.outcome.block = budget.admitAtOnce(event.outcome.block) ?? (await budget.admit(event.outcome.block));
          yield { type: "result", result: event.outcome.block, outcome: event.outcome };
        }
        await feeding;
        if (feedError !== undefined) throw feedError;
      } finally {
        executor.discard();
        releaseAbortController(controller);
        unlink();
        current = { ...executor.context, abortController: context.abortController };
      }
    },
  };
}
