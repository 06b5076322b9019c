export { createTodoWriteTool, todoWriteInputSchema, TodoWriteTool, type TodoWriteData, type TodoWriteInput } from "./todo-write-tool.js";
export { TodoStore, todoStore, type TodoChange, type TodoItem, type TodoStatus } from "./todo-store.js";
export { TODO_WRITE_RESULT, TODO_WRITE_TOOL_NAME } from "./prompt.js";
