import type { ToolResultBlock } from "../../tool/types.js";

/**
 * The `tool_use_result` of a stream-json `user` event, in the reference's shapes: the tool's own
 * structured output (Read's file, Edit's and Write's patch, Bash's stdout/stderr/interrupted,
 * TodoWrite's lists, Glob's and Grep's file lists, MCP's content), or for a failed call the text
 * `Error: …`. Fields only armature has are left out where the reference's shape is fixed.
 */
export function toolUseResult(toolName: string, block: ToolResultBlock, data: unknown): unknown {
  const text = typeof block.content === "string" ? block.content : block.content.map((b) => (b.type === "text" ? b.text : "[image]")).join("\n");
  if (block.is_error || data === undefined || data === null) return block.is_error ? `Error: ${text}` : text;
  if (typeof data !== "object") return data;
  const d = data as Record<string, unknown>;
  switch (toolName) {
    case "Bash": {
      // The reference reports stdout without its trailing newlines (the sample's `echo 3` gives "3").
      const out: Record<string, unknown> = { stdout: String(d.stdout ?? "").replace(/\n+$/, ""), stderr: String(d.stderr ?? "").replace(/\n+$/, ""), interrupted: d.interrupted === true, isImage: false, noOutputExpected: false };
      if (typeof d.backgroundTaskId === "string") out.backgroundTaskId = d.backgroundTaskId;
      return out;
    }
    case "Read":
      if (d.type === "text" && typeof d.file === "object" && d.file !== null) {
        const f = d.file as Record<string, unknown>;
        return { type: "text", file: { filePath: f.filePath, content: f.content, numLines: f.numLines, startLine: f.startLine, totalLines: f.totalLines ?? f.numLines } };
      }
      return data;
    case "Edit":
    case "MultiEdit":
      return omit(d, ["summary"]);
    case "Write":
      return { ...omit(d, ["note"]), userModified: d.userModified === true };
    case "Glob":
      return { ...d, countIsComplete: d.countIsComplete ?? d.truncated !== true };
    case "Grep":
      return grepResult(d);
    default:
      return data;
  }
}

/** Grep's fields per mode, as the reference has them (armature's `engine` and totals of other modes left out). */
function grepResult(d: Record<string, unknown>): Record<string, unknown> {
  const base: Record<string, unknown> = { mode: d.mode, numFiles: d.numFiles, filenames: d.filenames };
  if (d.appliedLimit !== undefined) base.appliedLimit = d.appliedLimit;
  if (d.appliedOffset !== undefined) base.appliedOffset = d.appliedOffset;
  if (d.mode === "content") return { ...base, content: d.content, numLines: d.numLines, totalLines: d.totalLines ?? d.numLines };
  if (d.mode === "count") return { ...base, content: d.content, numMatches: d.numMatches };
  return { ...base, totalFiles: d.totalFiles ?? d.numFiles };
}

function omit(record: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(record)) if (!keys.includes(k)) out[k] = v;
  return out;
}
