import { z } from "zod";
import { buildTool } from "../../tool/build-tool.js";
import type { Tool } from "../../tool/types.js";
import { bashLimitsFromEnv } from "../bash/config.js";
import { findTaskRegistry, unknownTaskMessage, type BackgroundTask, type TaskStatus } from "../../tasks/registry.js";
import { readOutputRange } from "../bash/output.js";
import {
  BASH_ID_DESCRIPTION,
  BLOCK_DESCRIPTION,
  FILTER_DESCRIPTION,
  TASK_ID_DESCRIPTION,
  TASK_OUTPUT_DESCRIPTION,
  TASK_OUTPUT_TOOL_NAME,
  TIMEOUT_DESCRIPTION,
} from "./prompt.js";

export const taskOutputInputSchema = z.object({
  task_id: z.string().optional().describe(TASK_ID_DESCRIPTION),
  block: z.boolean().optional().describe(BLOCK_DESCRIPTION),
  timeout: z.number().optional().describe(TIMEOUT_DESCRIPTION),
  bash_id: z.string().optional().describe(BASH_ID_DESCRIPTION),
  filter: z.string().optional().describe(FILTER_DESCRIPTION),
});

export type TaskOutputInput = z.infer<typeof taskOutputInputSchema>;

export const DEFAULT_WAIT_MS = 30_000;
export const MAX_WAIT_MS = 600_000;

export interface TaskOutputData {
  /** `success`: the answer is final or was not waited for; `timeout`: still running after the wait. */
  retrievalStatus: "success" | "timeout";
  taskId: string;
  taskType: string;
  status: TaskStatus;
  exitCode?: number | null;
  endNote?: string;
  /** New output since the previous read (head and tail when long). */
  output: string;
  newBytes: number;
  truncated: boolean;
  outputPath: string;
}

function taskIdOf(input: TaskOutputInput): string | undefined {
  return input.task_id ?? input.bash_id;
}

/** Waits for the task to end, the wait to pass, or the call to be aborted. */
async function waitFor(task: BackgroundTask, ms: number, signal: AbortSignal): Promise<void> {
  if (task.status !== "running" || signal.aborted) return;
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  await Promise.race([
    task.done,
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
      onAbort = () => resolve();
      signal.addEventListener("abort", onAbort, { once: true });
    }),
  ]);
  clearTimeout(timer);
  if (onAbort) signal.removeEventListener("abort", onAbort);
}

export function createTaskOutputTool(): Tool<typeof taskOutputInputSchema, TaskOutputData> {
  return buildTool({
    name: TASK_OUTPUT_TOOL_NAME,
    legacyNames: ["BashOutput", "AgentOutputTool"],
    searchHint: "read output of a background shell command or task",
    inputSchema: taskOutputInputSchema,
    description: TASK_OUTPUT_DESCRIPTION,
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    // Reading a task's output is reading its file: deny rules on it apply, and a file outside
    // the working dirs and the session's own output folders asks, as a Read would (a restored
    // task record must not become a way around the permission engine).
    permissionSubject(input, context) {
      const id = taskIdOf(input);
      const task = id === undefined ? undefined : findTaskRegistry(context)?.get(id);
      return task ? { kind: "file", access: "read", paths: [task.outputPath] } : undefined;
    },

    validateInput(input, context) {
      const id = taskIdOf(input);
      if (id === undefined || id.trim() === "") {
        return { result: false, message: "Give task_id: the id that Bash returned for the background command.", errorCode: "missing_task_id" };
      }
      if (input.timeout !== undefined && !(Number.isFinite(input.timeout) && input.timeout >= 0)) {
        return { result: false, message: `timeout must be a number of milliseconds ≥ 0; got ${input.timeout}.`, errorCode: "bad_timeout" };
      }
      if (input.filter !== undefined) {
        try {
          new RegExp(input.filter);
        } catch (err) {
          return { result: false, message: `filter is not a valid regular expression: ${(err as Error).message}`, errorCode: "bad_filter" };
        }
      }
      if (!findTaskRegistry(context)?.get(id)) return { result: false, message: unknownTaskMessage(id), errorCode: "unknown_task" };
      return { result: true };
    },

    async call(input, context) {
      const id = taskIdOf(input)!;
      const registry = findTaskRegistry(context);
      const task = registry?.get(id);
      if (!registry || !task) throw new Error(unknownTaskMessage(id));
      // The legacy BashOutput (bash_id) never waited; TaskOutput waits by default.
      const block = input.block ?? !(input.task_id === undefined && input.bash_id !== undefined);
      if (block) await waitFor(task, Math.min(input.timeout ?? DEFAULT_WAIT_MS, MAX_WAIT_MS), context.abortController.signal);
      const limits = bashLimitsFromEnv({ ...process.env, ...context.session.env });
      const read = await readOutputRange(task.outputPath, task.readOffset, limits.maxOutputChars);
      task.readOffset = read.end;
      let output = read.text;
      if (input.filter !== undefined) {
        const re = new RegExp(input.filter);
        output = output.split("\n").filter((line) => re.test(line)).join("\n");
      }
      if (task.status !== "running") registry.reported(task);
      const data: TaskOutputData = {
        retrievalStatus: block && task.status === "running" ? "timeout" : "success",
        taskId: task.id,
        taskType: task.type,
        status: task.status,
        output,
        newBytes: read.newBytes,
        truncated: read.truncated,
        outputPath: task.outputPath,
      };
      if (task.exitCode !== undefined) data.exitCode = task.exitCode;
      if (task.endNote !== undefined) data.endNote = task.endNote;
      return { data };
    },

    mapToolResultToToolResultBlockParam(data, toolUseId) {
      const parts = [
        `<retrieval_status>${data.retrievalStatus}</retrieval_status>`,
        `<task_id>${data.taskId}</task_id>`,
        `<task_type>${data.taskType}</task_type>`,
        `<status>${data.status}</status>`,
      ];
      if (data.exitCode !== undefined && data.exitCode !== null) parts.push(`<exit_code>${data.exitCode}</exit_code>`);
      if (data.endNote) parts.push(`<note>${data.endNote}</note>`);
      const output = data.output.trimEnd();
      parts.push(`<output>\n${output === "" ? "(no new output)" : output}\n</output>`);
      if (data.retrievalStatus === "timeout") parts.push("The task is still running. Call TaskOutput again later for more output, or TaskStop to stop it.");
      return { type: "tool_result", tool_use_id: toolUseId, content: parts.join("\n\n") };
    },
  });
}

export const TaskOutputTool = createTaskOutputTool();
