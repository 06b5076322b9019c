import type { StructuredPatchHunk } from "diff";
import { z } from "zod";
import { buildTool } from "../../tool/build-tool.js";
import type { Tool } from "../../tool/types.js";
import { judgedTargetOf } from "../../fs/judged-target.js";
import { filePathMembers } from "../../fs/path-members.js";
import { resolveToolPath } from "../../fs/path.js";
import type { WriterOptions } from "../../fs/text-file.js";
import { SAME_STRING_MESSAGE } from "./apply-edits.js";
import { editResultText, performEdits, summarizeEdits, type EditSummary } from "./perform-edits.js";
import { EDIT_DESCRIPTION, EDIT_TOOL_NAME } from "./prompt.js";

export const editInputSchema = z.object({
  file_path: z.string().describe("Absolute path of the file you are changing"),
  old_string: z.string().describe("The text to replace"),
  new_string: z.string().describe("What goes in its place; it has to differ from old_string"),
  replace_all: z.boolean().default(false).optional().describe("true changes every place old_string occurs, not just one (default false)"),
});

export type EditInput = z.infer<typeof editInputSchema>;

/** What PostToolUse hooks receive as tool_response (the model reads `editResultText`). */
export interface EditOutput {
  filePath: string;
  oldString: string;
  newString: string;
  originalFile: string;
  structuredPatch: StructuredPatchHunk[];
  userModified: false;
  replaceAll: boolean;
  summary: EditSummary;
}

export type EditToolOptions = WriterOptions;

export function createEditTool(options: EditToolOptions = {}): Tool<typeof editInputSchema, EditOutput> {
  return buildTool<typeof editInputSchema, EditOutput>({
    name: EDIT_TOOL_NAME,
    searchHint: "edit replace string in file",
    description: EDIT_DESCRIPTION,
    inputSchema: editInputSchema,

    ...filePathMembers<EditInput, "file_path">("file_path", "write", (input) =>
      input.old_string === input.new_string ? { result: false, message: SAME_STRING_MESSAGE, errorCode: "same" } : undefined),

    async call(input, context) {
      const path = resolveToolPath(input.file_path, context.workspace.cwd);
      const replaceAll = input.replace_all ?? false;
      const done = await performEdits(path, [{ old_string: input.old_string, new_string: input.new_string, replace_all: replaceAll }], context, { ...options, judgedTarget: judgedTargetOf(input) });
      return {
        data: {
          filePath: path,
          oldString: input.old_string,
          newString: input.new_string,
          originalFile: done.originalFile,
          structuredPatch: done.structuredPatch,
          userModified: false,
          replaceAll,
          summary: summarizeEdits(done, replaceAll),
        },
      };
    },

    mapToolResultToToolResultBlockParam(data, toolUseId) {
      return { type: "tool_result", tool_use_id: toolUseId, content: editResultText(data.summary) };
    },
  });
}

export const EditTool = createEditTool();
