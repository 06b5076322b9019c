import { z } from "zod";
import { buildTool } from "../../tool/build-tool.js";
import type { Tool } from "../../tool/types.js";
import { findTaskRegistry, unknownTaskMessage } from "../../tasks/registry.js";
import { SHELL_ID_DESCRIPTION, TASK_ID_DESCRIPTION, TASK_STOP_DESCRIPTION, TASK_STOP_TOOL_NAME } from "./prompt.js";

export const taskStopInputSchema = z.object({
  task_id: z.string().optional().describe(TASK_ID_DESCRIPTION),
  shell_id: z.string().optional().describe(SHELL_ID_DESCRIPTION),
});

export type TaskStopInput = z.infer<typeof taskStopInputSchema>;

export interface TaskStopData {
  message: string;
  task_id: string;
  task_type: string;
  command: string;
}

function taskIdOf(input: TaskStopInput): string | undefined {
  return input.task_id ?? input.shell_id;
}

export function createTaskStopTool(): Tool<typeof taskStopInputSchema, TaskStopData> {
  return buildTool({
    name: TASK_STOP_TOOL_NAME,
    aliases: ["KillShell", "KillBash"],
    searchHint: "stop kill a background shell command or task",
    inputSchema: taskStopInputSchema,
    description: TASK_STOP_DESCRIPTION,

    validateInput(input, context) {
      const id = taskIdOf(input);
      if (id === undefined || id.trim() === "") {
        return { result: false, message: "Give task_id: the id that Bash returned for the background command.", errorCode: "missing_task_id" };
      }
      const task = findTaskRegistry(context)?.get(id);
      if (!task) return { result: false, message: unknownTaskMessage(id), errorCode: "unknown_task" };
      if (task.status !== "running") {
        return {
          result: false,
          message: `Task ${id} is not running (status: ${task.status}). Its output stays in ${task.outputPath}.`,
          errorCode: "task_not_running",
        };
      }
      return { result: true };
    },

    async call(input, context) {
      const id = taskIdOf(input)!;
      const registry = findTaskRegistry(context);
      const task = registry?.get(id);
      if (!registry || !task) throw new Error(unknownTaskMessage(id));
      await task.stop();
      registry.reported(task);
      return {
        data: { message: `Successfully stopped task: ${task.id} (${task.description})`, task_id: task.id, task_type: task.type, command: task.description },
      };
    },

    mapToolResultToToolResultBlockParam(data, toolUseId) {
      return { type: "tool_result", tool_use_id: toolUseId, content: data.message };
    },
  });
}

export const TaskStopTool = createTaskStopTool();
