export { createTaskOutputTool, taskOutputInputSchema, TaskOutputTool, type TaskOutputData, type TaskOutputInput } from "./task-output-tool.js";
