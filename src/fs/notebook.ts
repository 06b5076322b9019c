/** The parts of the Jupyter nbformat 4 document that the file tools read and change. */
export interface NotebookOutput {
  output_type: string;
  text?: string | string[];
  data?: Record<string, unknown>;
  ename?: string;
  evalue?: string;
  traceback?: string[];
  [key: string]: unknown;
}

export interface NotebookCell {
  cell_type: "code" | "markdown" | "raw";
  id?: string;
  source: string | string[];
  metadata: Record<string, unknown>;
  outputs?: NotebookOutput[];
  execution_count?: number | null;
  [key: string]: unknown;
}

export interface Notebook {
  cells: NotebookCell[];
  metadata: Record<string, unknown>;
  nbformat: number;
  nbformat_minor: number;
  [key: string]: unknown;
}

const CELL_TYPES = new Set(["code", "markdown", "raw"]);

/** A parsed notebook, or what is wrong with it. */
export function parseNotebook(text: string): Notebook | string {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    return `The notebook is not valid JSON (${(err as Error).message}).`;
  }
  if (doc === null || typeof doc !== "object" || Array.isArray(doc)) return "The notebook is not a JSON object.";
  const nb = doc as Record<string, unknown>;
  if (!Array.isArray(nb.cells)) return "The notebook has no `cells` array.";
  if (typeof nb.nbformat !== "number") return "The notebook has no numeric `nbformat`.";
  for (const [i, cell] of (nb.cells as unknown[]).entries()) {
    if (cell === null || typeof cell !== "object") return `Cell ${i} is not an object.`;
    const c = cell as Record<string, unknown>;
    if (!CELL_TYPES.has(c.cell_type as string)) return `Cell ${i} has an unknown cell_type ${JSON.stringify(c.cell_type)}.`;
    if (typeof c.source !== "string" && !(Array.isArray(c.source) && c.source.every((s) => typeof s === "string"))) {
      return `Cell ${i} has a source that is neither a string nor a list of strings.`;
    }
  }
  if (nb.metadata === undefined) nb.metadata = {};
  if (typeof nb.nbformat_minor !== "number") nb.nbformat_minor = 0;
  return nb as unknown as Notebook;
}

export function joinSource(source: string | string[] | undefined): string {
  return Array.isArray(source) ? source.join("") : (source ?? "");
}

/** Source in the list-of-lines form nbformat writers use (each line keeps its newline). */
export function splitSource(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** The id the tools use for a cell: its own id, or `cell-<index>` for notebooks without ids. */
export function cellId(cell: NotebookCell, index: number): string {
  return typeof cell.id === "string" && cell.id !== "" ? cell.id : `cell-${index}`;
}

/** Index of the cell `id` names (its own id, else the `cell-<n>` form), or -1. */
export function findCell(nb: Notebook, id: string): number {
  const direct = nb.cells.findIndex((c) => c.id === id);
  if (direct !== -1) return direct;
  const m = /^cell-(\d+)$/.exec(id);
  if (m) {
    const index = Number(m[1]);
    if (index < nb.cells.length) return index;
  }
  return -1;
}

export function notebookLanguage(nb: Notebook): string {
  const info = nb.metadata.language_info as { name?: unknown } | undefined;
  const kernel = nb.metadata.kernelspec as { language?: unknown } | undefined;
  const name = info?.name ?? kernel?.language;
  return typeof name === "string" ? name : "python";
}

/** The indentation the notebook file uses, so a rewrite changes only what was edited. */
export function detectJsonIndent(text: string): number | string {
  const m = /^\{\r?\n([ \t]+)"/.exec(text);
  if (!m) return 1;
  return m[1]!.startsWith("\t") ? "\t" : m[1]!.length;
}
