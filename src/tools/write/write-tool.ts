import type { StructuredPatchHunk } from "diff";
import { z } from "zod";
import { buildTool } from "../../tool/build-tool.js";
import type { Tool } from "../../tool/types.js";
import { filePathMembers } from "../../fs/path-members.js";
import { UTF8 } from "../../fs/encoding.js";
import { withFileLockFor } from "../../fs/file-lock.js";
import { diffWrite, tooLargeToDiffNote } from "../../fs/patch.js";
import { judgedTargetOf } from "../../fs/judged-target.js";
import { resolveToolPath } from "../../fs/path.js";
import { loadForWrite, writeTextFile, type WriterOptions } from "../../fs/text-file.js";
import { WRITE_DESCRIPTION, WRITE_TOOL_NAME } from "./prompt.js";
import { STATE_CURRENT_SUFFIX } from "../../fs/file-state.js";

export const writeInputSchema = z.object({
  file_path: z.string().describe("Absolute path of the file to create or replace (a relative path is not accepted)"),
  content: z.string().describe("The full text the file will hold afterwards"),
});

export type WriteInput = z.infer<typeof writeInputSchema>;

/** What PostToolUse hooks receive as tool_response. */
export interface WriteOutput {
  type: "create" | "update";
  filePath: string;
  content: string;
  structuredPatch: StructuredPatchHunk[];
  originalFile: string | null;
  /** Set when the encoding had to change, or when the change was too large to diff. */
  note?: string;
}

export type WriteToolOptions = WriterOptions;

export function createWriteTool(options: WriteToolOptions = {}): Tool<typeof writeInputSchema, WriteOutput> {
  return buildTool<typeof writeInputSchema, WriteOutput>({
    name: WRITE_TOOL_NAME,
    searchHint: "create or overwrite a file",
    description: WRITE_DESCRIPTION,
    inputSchema: writeInputSchema,

    ...filePathMembers<WriteInput, "file_path">("file_path", "write"),

    async call(input, context) {
      const path = resolveToolPath(input.file_path, context.workspace.cwd);
      return withFileLockFor(path, async () => {
        const existing = await loadForWrite(path, context, options);
        const written = await writeTextFile(path, input.content, existing.exists ? existing.format : UTF8, context, {
          ...options,
          createParents: !existing.exists,
          expectMtimeMs: existing.exists ? existing.mtimeMs : null,
          judgedTarget: judgedTargetOf(input),
        });
        const original = existing.exists ? existing.text : null;
        const diff = diffWrite(original ?? "", input.content);
        const data: WriteOutput = {
          type: existing.exists ? "update" : "create",
          filePath: path,
          content: input.content,
          structuredPatch: diff.hunks,
          originalFile: original,
        };
        const notes = [written.note, existing.exists && diff.omitted ? tooLargeToDiffNote(diff.omitted) : undefined].filter((n) => n !== undefined);
        if (notes.length > 0) data.note = notes.join("\n");
        return { data };
      });
    },

    mapToolResultToToolResultBlockParam(data, toolUseId) {
      // The model sent the whole content, so its view is current: the reference says so.
      let text = (data.type === "create" ? `File created successfully at: ${data.filePath}` : `The file ${data.filePath} has been updated successfully.`) + STATE_CURRENT_SUFFIX;
      if (data.note !== undefined) text += `\n${data.note}`;
      return { type: "tool_result", tool_use_id: toolUseId, content: text };
    },
  });
}

export const WriteTool = createWriteTool();
