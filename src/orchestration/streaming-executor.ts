import { childAbortController, releaseAbortController } from "../tool/context.js";
import { toolUseError } from "../pipeline/errors.js";
import { duplicateToolUse, MAX_TOOL_USES_PER_TURN, overLimitToolUse, prepareToolUse, type PreparedCall } from "../pipeline/prepare.js";
import { runToolUse, type PipelineServices, type ToolCallOutcome } from "../pipeline/run-tool-use.js";
import type { ToolUseBlock, ToolUseContext } from "../tool/types.js";
import { AsyncQueue } from "./async-queue.js";

export type ExecutorEvent =
  | { type: "progress"; toolUseId: string; data: unknown }
  | { type: "result"; outcome: ToolCallOutcome };

export interface StreamingExecutorOptions {
  maxConcurrency: number;
  /** Abort running siblings when a call whose tool says so (Bash) fails. Default true. */
  abortSiblingsOnError?: boolean;
  /** Calls past this many get an error result and are never prepared (default MAX_TOOL_USES_PER_TURN). */
  maxCalls?: number;
  /**
   * The context's controller is this turn's own (made for it, aborted by nobody else): calls
   * share it directly instead of a child of it (a signal per turn less; a failure aborts it).
   */
  ownsController?: boolean;
}

type EntryState = "queued" | "running" | "done" | "released";

interface Entry {
  call: PreparedCall;
  state: EntryState;
  outcome?: ToolCallOutcome;
}

/**
 * Runs tool calls while the model is still streaming. A call starts as soon as it may:
 * a concurrency-safe call when no unsafe call runs, an unsafe call when nothing runs. A call
 * that cannot start blocks those behind it, so the model's order of effects is kept.
 * Progress is forwarded as it comes; results are released in tool_use order.
 */
export class StreamingToolExecutor {
  private readonly entries: Entry[] = [];
  /** Ids already added: a repeated id gets the duplicate error (a Set: a 1,000-call turn stays linear). */
  private readonly ids = new Set<string>();
  private readonly queue = new AsyncQueue<ExecutorEvent>();
  /** Parent of every call's controller: aborting it stops the siblings, not the session. */
  private readonly siblings: AbortController;
  private nextToStart = 0;
  private nextToRelease = 0;
  private running = 0;
  private runningUnsafe = 0;
  private finished = false;
  private discarded = false;
  private siblingFailure: string | undefined;
  private currentContext: ToolUseContext;
  /** What calls run in: the current context with the siblings' controller (made once per context change, not per call). */
  private callContext: ToolUseContext | undefined;

  constructor(
    context: ToolUseContext,
    private readonly services: PipelineServices,
    private readonly options: StreamingExecutorOptions,
  ) {
    this.currentContext = context;
    this.siblings = options.ownsController ? context.abortController : childAbortController(context.abortController);
  }

  /** The context after the modifiers of every released call. */
  get context(): ToolUseContext {
    return this.currentContext;
  }

  /** Adds a call whose block has finished streaming; it starts at once if it may. */
  addTool(block: ToolUseBlock): void {
    if (this.finished) throw new Error("addTool after done(): the stream of tool_use blocks has ended");
    if (this.discarded) return;
    const limit = this.options.maxCalls ?? MAX_TOOL_USES_PER_TURN;
    let call: PreparedCall;
    if (this.entries.length >= limit) {
      call = overLimitToolUse(block, limit);
    } else {
      const duplicate = this.ids.has(block.id);
      this.ids.add(block.id);
      call = duplicate ? duplicateToolUse(block) : prepareToolUse(block, this.currentContext);
    }
    this.entries.push({ call, state: "queued" });
    this.pump();
  }

  /** No more calls will be added; the event stream ends when all results are released. */
  done(): void {
    this.finished = true;
    this.releaseReady();
  }

  /** Stops everything (for a model retry): running calls are aborted, nothing more is released. */
  discard(): void {
    if (this.discarded) return;
    this.discarded = true;
    // After the last release nothing runs: no abort (an Error and an event dispatch every turn).
    if (!this.finished || this.nextToRelease < this.entries.length) this.siblings.abort(new Error("discarded"));
    this.queue.close();
  }

  /** Progress events as they come and result events in order, until done() and all released. */
  events(): AsyncIterable<ExecutorEvent> {
    return this.queue;
  }

  private readonly onProgress = (p: { toolUseId: string; data: unknown }): void => {
    if (!this.discarded) this.queue.push({ type: "progress", toolUseId: p.toolUseId, data: p.data });
  };

  private pump(): void {
    while (this.nextToStart < this.entries.length && !this.discarded) {
      const entry = this.entries[this.nextToStart]!;
      if (this.siblingFailure !== undefined) {
        this.finish(entry, cancelledOutcome(entry.call, this.siblingFailure));
        this.nextToStart++;
        continue;
      }
      if (!this.canStart(entry.call)) return;
      this.nextToStart++;
      this.start(entry);
    }
  }

  private canStart(call: PreparedCall): boolean {
    if (this.running >= this.options.maxConcurrency) return false;
    return call.concurrencySafe ? this.runningUnsafe === 0 : this.running === 0;
  }

  private start(entry: Entry): void {
    const safe = entry.call.concurrencySafe;
    entry.state = "running";
    this.running++;
    if (!safe) this.runningUnsafe++;
    // Every call shares the siblings' signal: nothing aborts one call alone, and a controller per
    // call (a listener on the parent each) was most of a large turn's cost.
    const context = (this.callContext ??= { ...this.currentContext, abortController: this.siblings });
    void runToolUse(entry.call, context, this.services, this.onProgress).then((outcome) => {
      this.running--;
      if (!safe) this.runningUnsafe--;
      if (this.discarded) return;
      if (outcome.isError && this.options.abortSiblingsOnError !== false && abortsSiblings(entry.call)) {
        this.siblingFailure = `${entry.call.block.name} call ${entry.call.block.id} failed`;
        this.siblings.abort(new Error(this.siblingFailure));
      }
      this.finish(entry, outcome);
      this.pump();
    });
  }

  private finish(entry: Entry, outcome: ToolCallOutcome): void {
    entry.outcome = outcome;
    entry.state = "done";
    this.releaseReady();
  }

  /** Releases the completed prefix in order, applying context modifiers in that order. */
  private releaseReady(): void {
    if (this.discarded) return;
    while (this.nextToRelease < this.entries.length) {
      const entry = this.entries[this.nextToRelease]!;
      if (entry.state !== "done" || !entry.outcome) break;
      entry.state = "released";
      this.nextToRelease++;
      if (entry.outcome.contextModifier) {
        this.currentContext = entry.outcome.contextModifier(this.currentContext);
        this.callContext = undefined;
      }
      this.queue.push({ type: "result", outcome: entry.outcome });
    }
    if (this.finished && this.nextToRelease === this.entries.length) {
      if (!this.options.ownsController) releaseAbortController(this.siblings);
      this.queue.close();
    }
  }
}

function abortsSiblings(call: PreparedCall): boolean {
  if (!call.tool?.abortsSiblingsOnError || !call.parsed.ok) return false;
  try {
    return call.tool.abortsSiblingsOnError(call.parsed.input) === true;
  } catch {
    return false;
  }
}

function cancelledOutcome(call: PreparedCall, why: string): ToolCallOutcome {
  return {
    block: {
      type: "tool_result",
      tool_use_id: call.block.id,
      content: toolUseError(`Cancelled: a parallel call (${why}), so this call was not run. Run it again if it is still needed.`),
      is_error: true,
    },
    newMessages: [],
    isError: true,
    notices: [],
  };
}
