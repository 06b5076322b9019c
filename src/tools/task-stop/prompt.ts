export const TASK_STOP_TOOL_NAME = "TaskStop";

export const TASK_STOP_DESCRIPTION = [
  "Stops a running background task by its id: the command and every process it started are terminated.",
  "",
  "- Give the task_id that Bash (run_in_background) returned.",
  "- Use it for servers, watchers and other long-running commands you no longer need. Its output file stays readable.",
].join("\n");

export const TASK_ID_DESCRIPTION = "The id of the background task to stop";
export const SHELL_ID_DESCRIPTION = "Deprecated: the same as task_id";
