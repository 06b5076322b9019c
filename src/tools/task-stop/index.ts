export { createTaskStopTool, taskStopInputSchema, TaskStopTool, type TaskStopData, type TaskStopInput } from "./task-stop-tool.js";
