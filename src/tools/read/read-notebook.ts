import { readFile } from "node:fs/promises";
import type { ImageBlock, ImageMediaType, TextBlock } from "../../tool/types.js";
import { decodeText } from "../../fs/encoding.js";
import { sha256 } from "../../fs/file-state.js";
import { cellId, joinSource, notebookLanguage, parseNotebook, type NotebookOutput } from "../../fs/notebook.js";

const MAX_NOTEBOOK_BYTES = 100 * 1024 * 1024;
const MAX_OUTPUT_CHARS = 10_000;

export type NotebookOutputView = { type: "text"; text: string } | { type: "image"; mediaType: ImageMediaType; data: string };

export interface NotebookCellView {
  cellId: string;
  cellType: string;
  source: string;
  language: string;
  executionCount?: number | null;
  outputs: NotebookOutputView[];
}

export interface NotebookReadData {
  type: "notebook";
  file: { filePath: string; cells: NotebookCellView[] };
}

const ANSI = /\x1b\[[0-9;]*[A-Za-z]/g;

function outputViews(output: NotebookOutput, path: string, index: number): NotebookOutputView[] {
  const views: NotebookOutputView[] = [];
  const pushText = (text: string): void => {
    let t = text.replace(ANSI, "");
    if (t.length > MAX_OUTPUT_CHARS) {
      t = `${t.slice(0, MAX_OUTPUT_CHARS)}\n… [output truncated; see it whole with Bash: jq '.cells[${index}].outputs' ${JSON.stringify(path)}]`;
    }
    if (t !== "") views.push({ type: "text", text: t });
  };
  switch (output.output_type) {
    case "stream":
      pushText(joinSource(output.text));
      break;
    case "error":
      pushText([`${output.ename ?? "Error"}: ${output.evalue ?? ""}`, ...(output.traceback ?? [])].join("\n"));
      break;
    default: {
      const data = output.data ?? {};
      for (const media of ["image/png", "image/jpeg"] as const) {
        const raw = data[media];
        if (typeof raw === "string" || Array.isArray(raw)) {
          views.push({ type: "image", mediaType: media, data: joinSource(raw as string | string[]).replace(/\s+/g, "") });
          return views;
        }
      }
      const plain = data["text/plain"];
      if (typeof plain === "string" || Array.isArray(plain)) pushText(joinSource(plain as string | string[]));
    }
  }
  return views;
}

/** Cells of a notebook with their outputs; the bytes' hash and a full read for readFileState. */
export async function readNotebook(path: string, size: number): Promise<{ data: NotebookReadData; contentHash: string }> {
  if (size > MAX_NOTEBOOK_BYTES) {
    throw new Error(`This notebook is too large to read (${Math.round(size / 1024 / 1024)} MiB; the limit is 100 MiB). Use Bash with jq to read parts of it, e.g. jq '.cells[:20]' ${JSON.stringify(path)}.`);
  }
  const bytes = await readFile(path);
  const nb = parseNotebook(decodeText(bytes).text);
  if (typeof nb === "string") throw new Error(`${path} is not a valid notebook: ${nb}`);
  const language = notebookLanguage(nb);
  const cells = nb.cells.map((cell, index): NotebookCellView => {
    const view: NotebookCellView = {
      cellId: cellId(cell, index),
      cellType: cell.cell_type,
      source: joinSource(cell.source),
      language,
      outputs: (cell.outputs ?? []).flatMap((o) => outputViews(o, path, index)),
    };
    if (cell.cell_type === "code") view.executionCount = cell.execution_count ?? null;
    return view;
  });
  return { data: { type: "notebook", file: { filePath: path, cells } }, contentHash: sha256(bytes) };
}

/** The notebook as the model sees it: each cell in its tags, text outputs after it, images as image blocks. */
export function notebookBlocks(data: NotebookReadData): Array<TextBlock | ImageBlock> {
  const blocks: Array<TextBlock | ImageBlock> = [];
  // Cells and their text outputs are separated by a blank line, as the reference shows them.
  let parts: string[] = [];
  const flush = (): void => {
    if (parts.length > 0) blocks.push({ type: "text", text: parts.join("\n\n") });
    parts = [];
  };
  for (const cell of data.file.cells) {
    let head = `<cell id="${cell.cellId}">`;
    if (cell.cellType !== "code") head += `<cell_type>${cell.cellType}</cell_type>`;
    else if (cell.language !== "python") head += `<language>${cell.language}</language>`;
    parts.push(`${head}${cell.source}</cell id="${cell.cellId}">`);
    for (const output of cell.outputs) {
      if (output.type === "text") {
        parts.push(output.text.endsWith("\n") ? output.text.slice(0, -1) : output.text);
      } else {
        flush();
        blocks.push({ type: "image", source: { type: "base64", media_type: output.mediaType, data: output.data } });
      }
    }
  }
  flush();
  if (blocks.length === 0) blocks.push({ type: "text", text: "<system-reminder>Warning: the notebook has no cells.</system-reminder>" });
  return blocks;
}
