import { DEFAULT_MAX_OUTPUT_CHARS, DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS } from "./config.js";

export const BASH_TOOL_NAME = "Bash";

export function bashDescription(options: { sandboxed: boolean }): string {
  const lines = [
    "Runs a bash command and returns its output (stdout and stderr together, in the order it wrote them) and its exit status.",
    "",
    "How commands run:",
    "- Each call is a new, non-interactive shell: stdin is empty and there is no terminal, so a command that waits for input (a password, a confirmation, an editor, a pager) gets end-of-file or fails instead of hanging. Pass flags such as `-y`, `--no-edit`, `--yes` or `--non-interactive` when a tool would otherwise ask.",
    "- The working directory carries over between calls while it stays inside the project or an added working directory; leaving them resets it to the project directory. Environment variables, aliases and functions do not carry over.",
    "- Prefer absolute paths, and quote paths that contain spaces (\"path with spaces\").",
    `- The timeout is optional, in milliseconds, up to ${MAX_TIMEOUT_MS} (10 minutes); the default is ${DEFAULT_TIMEOUT_MS} (2 minutes). When it expires, a command whose first word is \`sleep\` is stopped; any other is moved to the background and keeps running: you get its output so far and its output file, and a notification when it ends.`,
    "- Processes a command leaves running in the background (`server &`) are stopped when the call returns. To keep something running (a dev server, a watcher, a long build), set run_in_background: you get a task id and the path of its output file at once; read new output with Read on that file (or TaskOutput) and stop it with TaskStop. You are notified when it ends.",
    "",
    "Output:",
    `- At most ${DEFAULT_MAX_OUTPUT_CHARS} characters come back inline; beyond that you get the beginning and the end, and the path of a file with the full output, which you can search with Grep or read in parts.`,
    "- A non-zero exit status is reported as an error starting with `Exit code N`, except exit status 1 of grep, rg, diff, find, test, [, git diff and git grep, which is an answer (no match, a difference), not a failure.",
    "- An image written to stdout (PNG, JPEG, GIF, WebP) comes back as an image.",
    "",
    "Use the dedicated tools instead of shell equivalents when they exist: Read instead of cat/head/tail, Grep instead of grep/rg, Glob instead of find/ls for finding files, Edit and Write instead of sed, awk or echo redirection. They are faster, need fewer approvals and give structured results.",
    "",
    "Chain dependent commands with `&&` in one call; make independent calls in parallel in one message. Write a short `description` of what the command does (5-10 words, active voice).",
  ];
  if (options.sandboxed) {
    lines.push(
      "",
      "Sandbox: commands run in an OS sandbox. Files outside the working directories and the temp dir are read-only, and there is no network unless it was allowed. If a command fails because of the sandbox (\"Read-only file system\", \"Network is unreachable\", \"Could not resolve host\"), you may retry it with dangerouslyDisableSandbox: true, which asks the user for approval. Do not use it otherwise.",
    );
  }
  return lines.join("\n");
}

export const TIMEOUT_DESCRIPTION = `Optional timeout in milliseconds (max ${MAX_TIMEOUT_MS}; default ${DEFAULT_TIMEOUT_MS}). With run_in_background it limits how long the background command may run.`;
export const DESCRIPTION_DESCRIPTION =
  "A clear, concise description of what this command does, in active voice (e.g. \"List files in the current directory\", \"Install package dependencies\").";
export const BACKGROUND_DESCRIPTION =
  "Set to true to run the command in the background: the call returns a task id and an output file at once. Use TaskOutput to read its output and TaskStop to stop it.";
export const DISABLE_SANDBOX_DESCRIPTION =
  "Set to true to run this command outside the OS sandbox. Needs the user's approval; use it only when the sandbox is what made the command fail.";
