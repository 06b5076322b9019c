// The race suites of issue 17: a process of the same user flips what a write tool's path leads
// to while the tool runs, and nothing may land outside the project. `symlink`: the file's name
// flips between nothing, a link to an outside file and a dangling link outside. `parent`: the
// file's folder is moved away and replaced by a symlink to outside, then put back.
import { mkdirSync, writeFileSync } from "node:fs";
import { realpath } from "node:fs/promises";
import { join } from "node:path";
import { createEditTool } from "../../src/tools/edit/edit-tool.js";
import { createMultiEditTool } from "../../src/tools/edit/multi-edit-tool.js";
import { createNotebookEditTool } from "../../src/tools/notebook-edit/notebook-edit-tool.js";
import { createWriteTool } from "../../src/tools/write/write-tool.js";
import { withTempDir } from "../helpers.js";
import { callsDuringRace, fileSession, outsideChanges } from "./harness.js";

export type RaceKind = "symlink" | "parent";
export type RacedTool = "Write" | "Edit" | "MultiEdit" | "NotebookEdit";

export interface RaceReport {
  written: number;
  refused: number;
  /** What appeared or changed outside the project. */
  outside: string[];
}

const unread = { requireReadBeforeEdit: false };
const NOTEBOOK = JSON.stringify({ cells: [{ cell_type: "code", id: "c1", source: "1", metadata: {}, outputs: [], execution_count: null }], metadata: {}, nbformat: 4, nbformat_minor: 5 });

function inputFor(tool: RacedTool, path: string, i: number): Record<string, unknown> {
  switch (tool) {
    case "Write":
      return { file_path: path, content: `pwned ${i}\n` };
    case "Edit":
      return { file_path: path, old_string: "\n", new_string: " \n", replace_all: true };
    case "MultiEdit":
      return { file_path: path, edits: [{ old_string: "\n", new_string: "\t\n", replace_all: true }] };
    case "NotebookEdit":
      return { notebook_path: path, cell_id: "c1", new_source: `x = ${i}` };
  }
}

export async function runRace(kind: RaceKind, tool: RacedTool, calls: number): Promise<RaceReport> {
  return withTempDir(async (raw) => {
    const dir = await realpath(raw);
    const proj = join(dir, "proj");
    const outside = join(dir, "outside");
    mkdirSync(join(proj, "sub"), { recursive: true });
    mkdirSync(outside);
    const name = tool === "NotebookEdit" ? "n.ipynb" : "f.txt";
    const seed = tool === "NotebookEdit" ? NOTEBOOK : "start\n";
    writeFileSync(join(outside, name), seed);
    const path = kind === "parent" ? join(proj, "sub", name) : join(proj, name);
    if (kind === "parent") writeFileSync(path, seed);
    // The parent racer removes what a Write made at the missing name (its own folder, inside) before
    // putting the real folder back; `mv -T` never moves one folder into the other.
    // Each round leaves the real file in place for a moment (sleep 0.01): a tool call takes about
    // as long as one of the racer's steps, and without a calm moment nearly every call meets a
    // link and is refused, so the suite would show refusals only, never that writes still land.
    const script =
      kind === "parent"
        ? `cd "${proj}" && while :; do mv -T sub sub.away; ln -s "${outside}" sub; rm sub; rm -rf sub; mv -T sub.away sub; sleep 0.01; done`
        : `cd "${proj}" && while :; do cp "${outside}/${name}" ${name}.real; mv ${name}.real ${name}; sleep 0.01; ln -sfn "${outside}/${name}" ${name}; rm -f ${name}; ln -sfn "${outside}/created" ${name}; rm -f ${name}; done`;
    const s = fileSession(proj, [createWriteTool(unread), createEditTool(unread), createMultiEditTool(unread), createNotebookEditTool(unread)], {
      permissionMode: "acceptEdits",
    });
    const { ok, errors } = await callsDuringRace(s, script, calls, tool, (i) => inputFor(tool, path, i));
    const report: RaceReport = { written: ok, refused: errors, outside: outsideChanges(outside, name, seed) };
    return report;
  });
}
