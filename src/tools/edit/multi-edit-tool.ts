import type { StructuredPatchHunk } from "diff";
import { z } from "zod";
import { buildTool } from "../../tool/build-tool.js";
import type { Tool } from "../../tool/types.js";
import { judgedTargetOf } from "../../fs/judged-target.js";
import { filePathMembers } from "../../fs/path-members.js";
import { resolveToolPath } from "../../fs/path.js";
import type { WriterOptions } from "../../fs/text-file.js";
import { SAME_STRING_MESSAGE, type EditSpec } from "./apply-edits.js";
import { editResultText, performEdits, summarizeEdits, type EditSummary } from "./perform-edits.js";
import { MULTI_EDIT_DESCRIPTION, MULTI_EDIT_TOOL_NAME } from "./prompt.js";

export const multiEditInputSchema = z.object({
  file_path: z.string().describe("Absolute path of the file you are changing"),
  edits: z
    .array(
      z.object({
        old_string: z.string().describe("The text to replace"),
        new_string: z.string().describe("The text to replace it with"),
        replace_all: z.boolean().default(false).optional().describe("true changes every place old_string occurs, not just one (default false)."),
      }),
    )
    .min(1)
    .describe("Edits to apply in order, all or nothing"),
});

export type MultiEditInput = z.infer<typeof multiEditInputSchema>;

export interface MultiEditOutput {
  filePath: string;
  edits: EditSpec[];
  originalFile: string;
  structuredPatch: StructuredPatchHunk[];
  userModified: false;
  summary: EditSummary;
}

export type MultiEditToolOptions = WriterOptions;

export function createMultiEditTool(options: MultiEditToolOptions = {}): Tool<typeof multiEditInputSchema, MultiEditOutput> {
  return buildTool<typeof multiEditInputSchema, MultiEditOutput>({
    name: MULTI_EDIT_TOOL_NAME,
    searchHint: "several edits one file",
    description: MULTI_EDIT_DESCRIPTION,
    inputSchema: multiEditInputSchema,

    ...filePathMembers<MultiEditInput, "file_path">("file_path", "write", (input) => {
      const same = input.edits.findIndex((e) => e.old_string === e.new_string);
      if (same === -1) return undefined;
      const message = input.edits.length === 1 ? SAME_STRING_MESSAGE : `Edit ${same + 1} of ${input.edits.length}: ${SAME_STRING_MESSAGE}`;
      return { result: false, message, errorCode: "same" };
    }),

    getToolUseSummary: (input) => `${input.file_path} (${input.edits.length} edit${input.edits.length === 1 ? "" : "s"})`,

    async call(input, context) {
      const path = resolveToolPath(input.file_path, context.workspace.cwd);
      const edits: EditSpec[] = input.edits.map((e) => ({ old_string: e.old_string, new_string: e.new_string, replace_all: e.replace_all ?? false }));
      const done = await performEdits(path, edits, context, { ...options, judgedTarget: judgedTargetOf(input) });
      return {
        data: {
          filePath: path,
          edits,
          originalFile: done.originalFile,
          structuredPatch: done.structuredPatch,
          userModified: false,
          summary: summarizeEdits(done, false),
        },
      };
    },

    mapToolResultToToolResultBlockParam(data, toolUseId) {
      return { type: "tool_result", tool_use_id: toolUseId, content: editResultText(data.summary) };
    },
  });
}

export const MultiEditTool = createMultiEditTool();
