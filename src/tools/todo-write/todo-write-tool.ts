import { z } from "zod";
import { buildTool } from "../../tool/build-tool.js";
import type { Tool } from "../../tool/types.js";
import { TODO_WRITE_DESCRIPTION, TODO_WRITE_RESULT, TODO_WRITE_TOOL_NAME } from "./prompt.js";
import { todoStore, type TodoItem } from "./todo-store.js";

const todoItemSchema = z.object({
  content: z.string().min(1).describe("What to do, in the imperative (\"Run the tests\")"),
  status: z.enum(["pending", "in_progress", "completed"]),
  activeForm: z.string().min(1).describe("The same in the present continuous, shown while it runs (\"Running the tests\")"),
});

export const todoWriteInputSchema = z.object({
  todos: z.array(todoItemSchema).describe("The whole updated todo list"),
});

export type TodoWriteInput = z.infer<typeof todoWriteInputSchema>;

export interface TodoWriteData {
  oldTodos: TodoItem[];
  newTodos: TodoItem[];
}

export function createTodoWriteTool(): Tool<typeof todoWriteInputSchema, TodoWriteData> {
  return buildTool({
    name: TODO_WRITE_TOOL_NAME,
    searchHint: "task list todo plan progress tracking",
    inputSchema: todoWriteInputSchema,
    description: TODO_WRITE_DESCRIPTION,
    // Touches only the session's own list: nothing on disk, nothing outside (so plan mode allows it).
    isReadOnly: () => true,
    isConcurrencySafe: () => false,
    checkPermissions: () => ({ behavior: "allow", reason: "TodoWrite only changes the session's own todo list" }),

    async call(input, context) {
      const { oldTodos, newTodos } = todoStore(context).set(context.agent.agentId, input.todos);
      return { data: { oldTodos, newTodos } };
    },

    mapToolResultToToolResultBlockParam(_data, toolUseId) {
      return { type: "tool_result", tool_use_id: toolUseId, content: TODO_WRITE_RESULT };
    },
  });
}

export const TodoWriteTool = createTodoWriteTool();
