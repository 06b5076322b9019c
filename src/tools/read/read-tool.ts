import { stat } from "node:fs/promises";
import { extname } from "node:path";
import { z } from "zod";
import { buildTool } from "../../tool/build-tool.js";
import type { Tool, ToolResultBlock } from "../../tool/types.js";
import { filePathMembers } from "../../fs/path-members.js";
import { recordRead } from "../../fs/file-state.js";
import { recordWindow } from "../../fs/read-coverage.js";
import { isBlockedDevicePath, resolveToolPath } from "../../fs/path.js";
import { missingFileMessage } from "../../fs/similar-files.js";
import { READ_MAX_FILE_KB, READ_TOOL_NAME, readDescription, tooLargeMessage } from "./prompt.js";
import { IMAGE_EXTENSIONS, readImage, type ImageReadData } from "./read-image.js";
import { notebookBlocks, readNotebook, type NotebookReadData } from "./read-notebook.js";
import { fitPdfToBudget, formatPdf, parsePageRange, readPdf, readPdfDocument, type PdfDocumentData, type PdfReadData } from "./read-pdf.js";
import { binaryFileMessage, formatTextRead, readText, type TextReadData } from "./read-text.js";

export const readInputSchema = z.object({
  file_path: z.string().describe("Absolute path of the file you want to see"),
  offset: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe("Line to begin at, counted from 1. Leave it out to start at the top; use it with limit on a file too big for one call"),
  limit: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe("How many lines to return from offset on (0 or left out: to the end); needed only for a file too big for one call"),
  pages: z
    .string()
    .optional()
    .describe('PDF only: which pages, as "4", "2-6" or "11-15". A PDF longer than 10 pages needs it; 20 pages at most per call.'),
  allow_large: z
    .boolean()
    .optional()
    .describe(`true lifts the ${READ_MAX_FILE_KB} KB cap on a whole-file read (the output is still bounded by your context). Use it only when nothing short of the entire file will do.`),
});

export type ReadInput = z.infer<typeof readInputSchema>;
export type ReadOutput = TextReadData | ImageReadData | PdfReadData | PdfDocumentData | NotebookReadData;

export interface ReadToolOptions {
  /** Lines returned when the call gives no limit (default: no line limit, as the reference). */
  maxLines?: number;
  /** Longer lines are cut (default: never; the reference returns long lines whole). */
  maxLineChars?: number;
  /** A read stops before about this many tokens (25,000), with a notice naming the next offset. */
  maxOutputTokens?: number;
  /** With allow_large: the larger budget (default 200,000 tokens). */
  maxLargeOutputTokens?: number;
  /** A whole-file read of a file larger than this is refused unless allow_large (256 KiB). */
  maxFileBytes?: number;
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
  const maxLines = options.maxLines ?? Infinity;
  const maxLineChars = options.maxLineChars ?? Infinity;
  const maxOutputTokens = options.maxOutputTokens ?? 25_000;
  const maxLargeOutputTokens = options.maxLargeOutputTokens ?? 200_000;
  const maxFileBytes = options.maxFileBytes ?? READ_MAX_FILE_KB * 1024;

  return buildTool<typeof readInputSchema, ReadOutput>({
    name: READ_TOOL_NAME,
    searchHint: "read file contents lines image pdf notebook",
    description: readDescription(),
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
        // The reference's text (the system error of reading a directory).
        throw new Error(`EISDIR: illegal operation on a directory, read '${path}'`);
      }
      if (!info.isFile()) {
        const kind = info.isFIFO() ? "a FIFO" : info.isSocket() ? "a socket" : "a device";
        throw new Error(`Cannot read ${path}: it is ${kind}, not a regular file; reading it could block or never end.`);
      }

      const ext = extensionOf(path);
      if (IMAGE_EXTENSIONS.has(ext)) return { data: await readImage(path, info.size) };
      if (ext === "pdf") {
        // A model that reads PDFs itself gets the file whole (the reference's document block).
        const document = input.pages === undefined && context.options.pdfDocuments === true ? await readPdfDocument(path, info.size) : undefined;
        if (document) return { data: document };
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

      // The size cap guards a whole-file read only: a window of a big file is what it suggests.
      const whole = input.offset === undefined && !input.limit;
      if (whole && info.size > maxFileBytes && input.allow_large !== true) throw new Error(tooLargeMessage(info.size, maxFileBytes));
      const result = await readText(
        path,
        info.size,
        {
          offset: input.offset ?? 1,
          limit: input.limit === undefined || input.limit === 0 ? maxLines : input.limit,
          maxLineChars,
          maxOutputTokens: input.allow_large === true ? maxLargeOutputTokens : maxOutputTokens,
          windowNotice: options.windowNotice === true,
        },
        context.abortController.signal,
      );
      const { numLines, contentLines: totalLines } = result.data.file;
      const startLine = Math.max(1, result.data.file.startLine);
      const window = { mtimeMs: info.mtimeMs, startLine, endLine: Math.min(startLine + numLines - 1, totalLines ?? Infinity) };
      const covered = !result.full && recordWindow(context, path, totalLines === undefined ? window : { ...window, totalLines });
      // A full read carries the hash; a file seen whole through several windows has none, so a
      // later mtime change counts as a change (a false alarm at worst, never a missed one).
      // `partial` no longer forbids an edit: it says whether the model has the whole file in view.
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
        case "pdf_document":
          return block([
            { type: "text", text: `PDF file read: ${data.file.filePath} (${data.file.originalSize} bytes)` },
            { type: "document", source: { type: "base64", media_type: "application/pdf", data: data.file.base64 } },
          ]);
        case "notebook":
          return block(notebookBlocks(data));
      }
    },
  });
}

export const ReadTool = createReadTool();
