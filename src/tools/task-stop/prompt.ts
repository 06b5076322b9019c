export const TASK_STOP_TOOL_NAME = "TaskStop";

export const TASK_STOP_DESCRIPTION = [
  "Ends a background task given its id: its command and every process that command started are killed.",
  "",
  "- Give the task_id that Bash (run_in_background) returned.",
  "- Use it for servers, watchers and other long-running commands you no longer need. Its output file stays readable.",
].join("\n");

export const TASK_ID_DESCRIPTION = "Which background task to end (the id Bash or Agent gave you)";
export const SHELL_ID_DESCRIPTION = "Deprecated: the same as task_id";
