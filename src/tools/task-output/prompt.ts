export const TASK_OUTPUT_TOOL_NAME = "TaskOutput";

export const TASK_OUTPUT_DESCRIPTION = [
  "Reads the output of a background task (a Bash command started with run_in_background) since the last read.",
  "",
  "- Give the task_id that Bash returned. By default it waits until the task finishes or the timeout passes (block: true, timeout 30000 ms, at most 600000); set block: false to get what is there now.",
  "- Each call returns only output that is new since the previous call, with the task's status and, once it ended, its exit code.",
  "- Long output comes back as its beginning and end, with the path of the file holding all of it; you can also read that file directly.",
].join("\n");

export const TASK_ID_DESCRIPTION = "The id of the background task";
export const BLOCK_DESCRIPTION = "Whether to wait for the task to finish (default true)";
export const TIMEOUT_DESCRIPTION = "How long to wait in milliseconds when blocking (default 30000, max 600000)";
export const BASH_ID_DESCRIPTION = "Deprecated: the same as task_id";
export const FILTER_DESCRIPTION = "Deprecated: a regular expression; only output lines that match it are returned";
