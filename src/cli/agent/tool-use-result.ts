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
      return omit(d, ["note"]);
    default:
      return data;
  }
}

function omit(record: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(record)) if (!keys.includes(k)) out[k] = v;
  return out;
}
