// The files a patch changes, read from the patch at decision time: its `---`/`+++`/`***`/`Index:`
// and git headers (hunk bodies skipped), with `-p N` stripping. A patch read from a pipe, or one
// that makes symlinks, is not known.
import { closeSync, readSync } from "node:fs";
import { posix } from "node:path";
import type { ShellSubcommand } from "../tool/types.js";
import { analysisArgv } from "./index.js";
import { openRegular, type ArchiveEntry } from "./archive-entries.js";
import { asWords, hasOption, optionValues, stdinFile, strip, type Locate, type TreePlan } from "./tree-plan.js";

const PATCH_MAX_BYTES = 16 * 1024 * 1024;

/** The file names a patch names (`---`, `+++`, `***`, `Index:`, git headers), hunk bodies skipped. */
export function patchNames(text: string): { names: string[]; renames: string[]; symlink: boolean } {
  const names: string[] = [];
  const renames: string[] = [];
  let symlink = false;
  let oldLeft = 0;
  let newLeft = 0;
  const unquote = (s: string): string => {
    if (!s.startsWith('"')) return s;
    const body = s.slice(1, s.lastIndexOf('"') > 0 ? s.lastIndexOf('"') : undefined);
    const bytes = body.replace(/\\([0-7]{3}|.)/g, (_, c: string) => (/^[0-7]{3}$/.test(c) ? String.fromCharCode(parseInt(c, 8)) : ({ n: "\n", t: "\t" } as Record<string, string>)[c] ?? c));
    return Buffer.from(bytes, "latin1").toString("utf8");
  };
  const fileName = (rest: string): string[] => {
    const noTime = rest.split("\t")[0]!;
    if (noTime.startsWith('"')) return [unquote(noTime)];
    return [...new Set([noTime.trimEnd(), noTime.trim().split(/\s+/)[0] ?? ""])].filter((n) => n !== "");
  };
  for (const line of text.split("\n")) {
    if (oldLeft > 0 || newLeft > 0) {
      const c = line[0];
      if (c === " " || c === undefined || c === "\r") {
        oldLeft--;
        newLeft--;
      } else if (c === "-") oldLeft--;
      else if (c === "+") newLeft--;
      else if (c !== "\\") oldLeft = newLeft = 0;
      continue;
    }
    const hunk = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/.exec(line);
    if (hunk) {
      oldLeft = hunk[1] === undefined ? 1 : Number(hunk[1]);
      newLeft = hunk[2] === undefined ? 1 : Number(hunk[2]);
      continue;
    }
    const header = /^(?:--- |\+\+\+ |\*\*\* |Index: )(.*)$/.exec(line);
    if (header && !/^[*-]{3} \d+(,\d+)? [*-]{4}/.test(line)) names.push(...fileName(header[1]!));
    const git = /^diff --git (.*)$/.exec(line);
    if (git) names.push(...git[1]!.split(" ").filter((w) => /^"?[ab]\//.test(w)).map(unquote));
    const rename = /^(?:rename|copy) (?:from|to) (.*)$/.exec(line);
    if (rename) renames.push(unquote(rename[1]!));
    if (/^(?:new file mode|new mode) 120000/.test(line)) symlink = true;
  }
  return { names: names.filter((n) => n !== "/dev/null"), renames, symlink };
}

export function patchPlan(argv: readonly string[], sub: ShellSubcommand, locate: Locate): TreePlan {
  const { getopt, tableFor } = analysisArgv();
  const parsed = getopt(asWords(argv), tableFor("patch")!);
  const operands = parsed.operands.map((o) => o.word.text);
  // Patching one named file, writing the result elsewhere, or only trying: no other file is written.
  if (operands[0] !== undefined || hasOption(parsed, ["-o", "--output", "--dry-run"])) return { entries: [] };
  const input = operands[1] ?? optionValues(parsed, ["-i", "--input"]).pop() ?? "-";
  const file = input === "-" ? stdinFile(sub, "the patch") : input;
  if (typeof file !== "string") return file;
  const paths = locate(file);
  if (typeof paths === "string") return { unknown: paths };
  const strips = optionValues(parsed, ["-p", "--strip"]);
  const count = strips.length > 0 ? Number(strips[strips.length - 1]) : undefined;
  if (count !== undefined && (!Number.isInteger(count) || count < 0)) return { unknown: `-p${strips[strips.length - 1]} is not a number` };
  const out: ArchiveEntry[] = [];
  for (const p of paths) {
    const text = readBounded(p);
    if (text === null) return { unknown: `${file} is not a readable regular file of at most ${PATCH_MAX_BYTES} bytes, so which files it changes is not known` };
    const found = patchNames(text);
    if (found.symlink) return { unknown: `${file} creates a symlink (git mode 120000), through which later writes may go elsewhere` };
    for (const n of found.names) {
      // Without -p, patch takes the base name, or the whole name when its directories exist: both judged.
      const named = count === undefined ? [n, posix.basename(n)] : [n.split("/").length > count ? n.split("/").slice(count).join("/") : posix.basename(n)];
      for (const name of named) out.push({ name });
    }
    for (const n of found.renames) out.push({ name: n }, { name: count === undefined ? n : (strip(n, count) ?? n) });
  }
  return { entries: out };
}

function readBounded(path: string): string | null {
  const opened = openRegular(path);
  if ("error" in opened) return null;
  const { fd, size } = opened;
  try {
    if (size > PATCH_MAX_BYTES) return null;
    const buf = Buffer.alloc(size);
    let got = 0;
    while (got < size) {
      const n = readSync(fd, buf, got, size - got, got);
      if (n === 0) break;
      got += n;
    }
    return buf.subarray(0, got).toString("utf8");
  } finally {
    closeSync(fd);
  }
}
