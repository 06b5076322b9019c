export { partitionToolCalls } from "./partition.js";
export type { Batch } from "./partition.js";
export { runTools } from "./run-tools.js";
export type { RunToolsOptions, RunToolsResult } from "./run-tools.js";
export { StreamingToolExecutor } from "./streaming-executor.js";
export type { ExecutorEvent, StreamingExecutorOptions } from "./streaming-executor.js";
export { resolveMaxConcurrency, mapWithLimit, DEFAULT_MAX_CONCURRENCY } from "./concurrency.js";
export { AsyncQueue } from "./async-queue.js";
