import { isAbsolute, resolve } from "node:path";
import type { Refusal, RefusalText } from "../../pipeline/run-tool-use.js";

/** The file-writing tools and the input key that names their file. */
const WRITTEN_PATH: Record<string, string> = { Write: "file_path", Edit: "file_path", MultiEdit: "file_path", NotebookEdit: "notebook_path" };

/**
 * The reference CLI's (2.1.332) words for a refused call, as its recorded runs show them
 * (test/agent-sdk/reference/fixtures): a file write no one could approve in `-p` mode, and a
 * PreToolUse hook's deny. Sent as they are, not wrapped in `<tool_use_error>`. Anything else —
 * a Bash command that needs approval (the reference explains its own classifier there), a deny
 * rule, an exit-2 hook — keeps armature's words.
 */
export function referenceRefusalText(cwd: string): RefusalText {
  return (refusal: Refusal) => {
    if (refusal.kind === "hook") return `PreToolUse:${refusal.tool.name} hook error: ${refusal.reason ?? "Blocked by hook"}`;
    const key = WRITTEN_PATH[refusal.tool.name];
    const path = key === undefined ? undefined : refusal.input[key];
    if (typeof path !== "string" || path === "") return undefined;
    return `Claude requested permissions to write to ${isAbsolute(path) ? path : resolve(cwd, path)}, but you haven't granted it yet.`;
  };
}
