import { DEFAULT_MAX_OUTPUT_CHARS, DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS } from "./config.js";

export const BASH_TOOL_NAME = "Bash";

export function bashDescription(options: { sandboxed: boolean }): string {
  const lines = [
    "Executes one bash command line and gives back what it printed (stdout and stderr interleaved, in the order written) together with its exit status.",
    "",
    "How commands run:",
    "- Each call is a new, non-interactive shell: stdin is empty and there is no terminal, so a command that waits for input (a password, a confirmation, an editor, a pager) gets end-of-file or fails instead of hanging. Pass flags such as `-y`, `--no-edit`, `--yes` or `--non-interactive` when a tool would otherwise ask.",
    "- The working directory carries over between calls while it stays inside the project or an added working directory; leaving them resets it to the project directory. Environment variables, aliases and functions do not carry over.",
    "- Prefer absolute paths, and quote paths that contain spaces (\"path with spaces\").",
    `- The timeout is optional, in milliseconds, up to ${MAX_TIMEOUT_MS} (10 minutes); the default is ${DEFAULT_TIMEOUT_MS} (2 minutes). When it expires, a command whose first word is \`sleep\` is stopped; any other is moved to the background and keeps running: you get its output so far and its output file, and a notification when it ends.`,
    "- Processes a command leaves running in the background (`server &`) are stopped when the call returns. To keep something running (a dev server, a watcher, a long build), set run_in_background: you get a task id and the path of its output file at once; read new output with Read on that file (or TaskOutput) and stop it with TaskStop. You are notified when it ends.",
    "",
    "Output:",
    `- Up to ${DEFAULT_MAX_OUTPUT_CHARS} characters of output come back inline. Longer output comes back as a short preview plus the path of a file holding all of it; search that file with Grep or read it in parts.`,
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
  "Say in a few words, active voice, what the command is for (e.g. \"Show git status\", \"Run the unit tests\").";
export const BACKGROUND_DESCRIPTION =
  "Set to true to run the command in the background: the call returns a task id and an output file at once. Use TaskOutput to read its output and TaskStop to stop it.";
export const DISABLE_SANDBOX_DESCRIPTION =
  "true lifts the OS sandbox for this one command. The user must approve; ask for it only after the sandbox itself made the command fail.";
