import { randomBytes } from "node:crypto";
import { cellId, findCell, joinSource, splitSource, type Notebook, type NotebookCell } from "../../fs/notebook.js";

export type NotebookEditMode = "replace" | "insert" | "delete";

export interface NotebookEditRequest {
  mode: NotebookEditMode;
  cellId?: string;
  newSource: string;
  cellType?: "code" | "markdown";
}

export type NotebookEditOutcome =
  | { ok: true; notebook: Notebook; cellId: string; cellType: NotebookCell["cell_type"] }
  | { ok: false; message: string };

/** nbformat 4.5 and later give every cell an id. */
function usesCellIds(nb: Notebook): boolean {
  return nb.nbformat > 4 || (nb.nbformat === 4 && nb.nbformat_minor >= 5);
}

function sourceLike(text: string, like: string | string[] | undefined): string | string[] {
  return typeof like === "string" ? text : splitSource(text);
}

/** A code cell whose source changed: its outputs and execution count no longer describe it. */
function clearRunState(cell: NotebookCell): void {
  if (cell.cell_type === "code") {
    cell.outputs = [];
    cell.execution_count = null;
  } else {
    delete cell.outputs;
    delete cell.execution_count;
  }
}

function notFound(id: string, nb: Notebook): string {
  const ids = nb.cells.slice(0, 20).map((c, i) => cellId(c, i));
  return `Cell with ID "${id}" not found in the notebook. Its cells are: ${ids.join(", ")}${nb.cells.length > 20 ? ", …" : ""}.`;
}

/** One cell edit on a parsed notebook (mutated in place). Pure apart from the random id of a new cell. */
export function applyNotebookEdit(nb: Notebook, request: NotebookEditRequest): NotebookEditOutcome {
  const { mode, newSource } = request;
  if (mode === "insert") {
    let at = 0;
    if (request.cellId !== undefined) {
      const index = findCell(nb, request.cellId);
      if (index === -1) return { ok: false, message: notFound(request.cellId, nb) };
      at = index + 1;
    }
    const type = request.cellType ?? "code";
    const cell: NotebookCell = { cell_type: type, metadata: {}, source: sourceLike(newSource, nb.cells[0]?.source ?? []) };
    if (usesCellIds(nb)) cell.id = newCellId(nb);
    clearRunState(cell);
    nb.cells.splice(at, 0, orderedCell(cell));
    return { ok: true, notebook: nb, cellId: cellId(cell, at), cellType: type };
  }

  if (request.cellId === undefined) return { ok: false, message: `cell_id is required to ${mode} a cell.` };
  const index = findCell(nb, request.cellId);
  if (index === -1) return { ok: false, message: notFound(request.cellId, nb) };
  const cell = nb.cells[index]!;
  const id = cellId(cell, index);
  if (mode === "delete") {
    nb.cells.splice(index, 1);
    return { ok: true, notebook: nb, cellId: id, cellType: cell.cell_type };
  }
  const changed = joinSource(cell.source) !== newSource || (request.cellType !== undefined && request.cellType !== cell.cell_type);
  cell.source = sourceLike(newSource, cell.source);
  if (request.cellType !== undefined) cell.cell_type = request.cellType;
  if (changed) clearRunState(cell);
  nb.cells[index] = orderedCell(cell);
  return { ok: true, notebook: nb, cellId: id, cellType: cell.cell_type };
}

/** Keys sorted, as Jupyter writes them, so a rewrite produces a minimal diff. */
function orderedCell(cell: NotebookCell): NotebookCell {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(cell).sort()) out[key] = cell[key];
  return out as NotebookCell;
}

function newCellId(nb: Notebook): string {
  const taken = new Set(nb.cells.map((c) => c.id));
  for (;;) {
    const id = randomBytes(4).toString("hex");
    if (!taken.has(id)) return id;
  }
}
