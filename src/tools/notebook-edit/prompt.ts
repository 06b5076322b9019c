export const NOTEBOOK_EDIT_TOOL_NAME = "NotebookEdit";

export const NOTEBOOK_EDIT_DESCRIPTION = `Replaces, inserts or deletes one cell of a Jupyter notebook (.ipynb file).

Usage:
- notebook_path is the notebook's absolute path. Read the notebook (in full) in this conversation first; the edit is refused if it changed since.
- cell_id names the cell, as Read shows it (<cell id="...">); cells without an id are named cell-N (0-based index).
- edit_mode replace (default) sets the cell's source to new_source; an edited code cell loses its old outputs and execution count.
- edit_mode insert adds a new cell after cell_id, or at the start when cell_id is omitted; cell_type (code or markdown) is required.
- edit_mode delete removes the cell.
- The notebook's metadata and the other cells are kept as they are.`;
