import { stat } from "node:fs/promises";
import { extname } from "node:path";
import { z } from "zod";
import { buildTool } from "../../tool/build-tool.js";
import type { Tool, ToolResultBlock } from "../../tool/types.js";
import { filePathMembers } from "../fs/path-members.js";
import { recordRead } from "../fs/file-state.js";
import { recordWindow } from "../fs/read-coverage.js";
import { isBlockedDevicePath, resolveToolPath } from "../fs/path.js";
import { missingFileMessage } from "../fs/similar-files.js";
import { READ_TOOL_NAME, readDescription } from "./prompt.js";
import { IMAGE_EXTENSIONS, readImage, type ImageReadData } from "./read-image.js";
import { notebookBlocks, readNotebook, type NotebookReadData } from "./read-notebook.js";
import { fitPdfToBudget, formatPdf, parsePageRange, readPdf, type PdfReadData } from "./read-pdf.js";
import { binaryFileMessage, formatTextRead, readText, type TextReadData } from "./read-text.js";

export const readInputSchema = z.object({
  file_path: z.string().describe("The absolute path to the file to read"),
  offset: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe("The line number to start reading from (1-based). Only provide if the file is too large to read at once"),
  limit: z
    .number()
    .int()
    .positive()
    .optional()
    .describe("The number of lines to read. Only provide if the file is too large to read at once."),
  pages: z
    .string()
    .optional()
    .describe('Page range for PDF files (e.g. "1-5", "3", "10-20"). Required for PDFs over 10 pages; at most 20 pages per call.'),
});

export type ReadInput = z.infer<typeof readInputSchema>;
export type ReadOutput = TextReadData | ImageReadData | PdfReadData | NotebookReadData;

export interface ReadToolOptions {
  /** Lines in the default window (2000). */
  maxLines?: number;
  /** Longer lines are cut (2000). */
  maxLineChars?: number;
  /** A window stops before about this many tokens (25,000), with a notice naming the next offset. */
  maxOutputTokens?: number;
  /**
   * After a window that stops before the end of the file, add `[Showing lines a-b; the file has
   * more lines. Call Read with offset=… to continue.]` (default false: the reference agent
   * returns the window bare).
   */
  windowNotice?: boolean;
}

const BINARY_EXTENSIONS = new Set(
  (
    "zip gz tgz bz2 xz 7z rar tar zst lz4 exe dll so dylib o a obj lib class jar war pyc pyo wasm iso dmg img " +
    "mp3 mp4 m4a wav flac ogg opus avi mov mkv webm wmv flv bmp ico tif tiff psd heic avif woff woff2 ttf otf eot " +
    "doc docx xls xlsx ppt pptx odt ods odp sqlite sqlite3 db parquet pickle pkl npy npz pt pth onnx h5 safetensors"
  ).split(" "),
);

function extensionOf(path: string): string {
  return extname(path).slice(1).toLowerCase();
}

/** The Read tool. Read-only and concurrency-safe; it bounds its own output, so no persistence threshold. */
export function createReadTool(options: ReadToolOptions = {}): Tool<typeof readInputSchema, ReadOutput> {
  const maxLines = options.maxLines ?? 2000;
  const maxLineChars = options.maxLineChars ?? 2000;
  const maxOutputTokens = options.maxOutputTokens ?? 25_000;

  return buildTool<typeof readInputSchema, ReadOutput>({
    name: READ_TOOL_NAME,
    searchHint: "read file contents lines image pdf notebook",
    description: readDescription(maxLines, maxLineChars),
    inputSchema: readInputSchema,
    maxResultSizeChars: Infinity,
    isReadOnly: () => true,
    isConcurrencySafe: () => true,

    ...filePathMembers<ReadInput, "file_path">("file_path", "read", (input) => {
      const range = input.pages === undefined ? undefined : parsePageRange(input.pages);
      return typeof range === "string" ? { result: false, message: range, errorCode: "pages" } : undefined;
    }),


    async call(input, context) {
      const cwd = context.workspace.cwd;
      const path = resolveToolPath(input.file_path, cwd);
      if (isBlockedDevicePath(path)) {
        throw new Error(`Cannot read ${path}: it is a device or stream that never ends or blocks. Read regular files only.`);
      }
      let info;
      try {
        info = await stat(path);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") throw new Error(await missingFileMessage(path, cwd));
        throw err;
      }
      if (info.isDirectory()) {
        throw new Error(`${path} is a directory, not a file. To list its contents use Glob (e.g. pattern "*" with path "${path}").`);
      }
      if (!info.isFile()) {
        const kind = info.isFIFO() ? "a FIFO" : info.isSocket() ? "a socket" : "a device";
        throw new Error(`Cannot read ${path}: it is ${kind}, not a regular file; reading it could block or never end.`);
      }

      const ext = extensionOf(path);
      if (IMAGE_EXTENSIONS.has(ext)) return { data: await readImage(path, info.size) };
      if (ext === "pdf") {
        const range = input.pages === undefined ? undefined : parsePageRange(input.pages);
        const data = await readPdf(path, info.size, typeof range === "string" ? undefined : range);
        const lastRequested = data.file.pages[data.file.pages.length - 1]?.page ?? 0;
        return { data: fitPdfToBudget(data, maxOutputTokens * 4, lastRequested) };
      }
      if (ext === "ipynb") {
        const { data, contentHash } = await readNotebook(path, info.size);
        const text = notebookBlocks(data).reduce((n, b) => n + (b.type === "text" ? b.text.length : 0), 0);
        if (text > maxOutputTokens * 4) {
          throw new Error(
            `This notebook's text (${text.toLocaleString("en-US")} characters) is over the ~${maxOutputTokens.toLocaleString("en-US")}-token limit of one read. Use Bash with jq to read parts of it, e.g. jq '.cells[:20]' ${JSON.stringify(path)}.`,
          );
        }
        recordRead(context.readFileState, path, { contentHash, mtimeMs: info.mtimeMs, partial: false });
        return { data };
      }
      if (BINARY_EXTENSIONS.has(ext)) throw new Error(binaryFileMessage(path, `.${ext}`));

      const result = await readText(
        path,
        info.size,
        { offset: input.offset ?? 1, limit: input.limit ?? maxLines, maxLineChars, maxOutputTokens, windowNotice: options.windowNotice === true },
        context.abortController.signal,
      );
      const { startLine, numLines, contentLines: totalLines } = result.data.file;
      const window = { mtimeMs: info.mtimeMs, startLine, endLine: Math.min(startLine + numLines - 1, totalLines ?? Infinity) };
      const covered = !result.full && recordWindow(context, path, totalLines === undefined ? window : { ...window, totalLines });
      // A full read carries the hash; a file seen whole through several windows has none, so a
      // later mtime change counts as a change (a false alarm at worst, never a missed one).
      recordRead(context.readFileState, path, {
        contentHash: result.contentHash ?? "",
        mtimeMs: info.mtimeMs,
        partial: !result.full && !covered,
      });
      return { data: result.data };
    },

    mapToolResultToToolResultBlockParam(data, toolUseId): ToolResultBlock {
      const block = (content: ToolResultBlock["content"]): ToolResultBlock => ({ type: "tool_result", tool_use_id: toolUseId, content });
      switch (data.type) {
        case "text":
          return block(formatTextRead(data));
        case "image":
          return block([{ type: "image", source: { type: "base64", media_type: data.file.type, data: data.file.base64 } }]);
        case "pdf":
          return block(formatPdf(data));
        case "notebook":
          return block(notebookBlocks(data));
      }
    },
  });
}

export const ReadTool = createReadTool();
