// Paths a simple command writes, reads and changes into, as written after quote removal.
// Non-static paths (`$HOME/x`, `*.log`, `~/x`) are kept as written: the permission engine
// treats what it cannot resolve as needing approval.
import { posix } from "node:path";
import { findOption, optionValues as valuesOf, parseCommand, tableTargets, unnamedFiles, xxdParse } from "./options.js";
import { isWriteRedirect } from "./read-only.js";
import { sedScriptObjection } from "./sed.js";
import { awkProgramObjection } from "./awk.js";
import { jqReadTargets } from "./lang/jq.js";
import { gitTraceFile } from "./shared.js";
import { gitTargets } from "./git-targets.js";
import { tarParse, tarTargets } from "./tar.js";
import { tableFor } from "./commands/index.js";
import {
  backupTargets, listingTargets, testTargets, patchTargets, scriptLanguageTargets, searchesCurrentDir, splitTargets, unzipTargets,
  type BackupContext,
} from "./tool-targets.js";
import type { SimpleCommand } from "./command.js";
import type { Word } from "./words.js";
import type { Targets } from "./commands/types.js";

/** Commands whose operands are all files they read. */
const READS_ALL_OPERANDS = new Set([
  "cat", "head", "tail", "nl", "tac", "rev", "wc", "less", "more", "od", "hexdump", "strings",
  "base64", "base32", "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum",
  "b2sum", "cksum", "sum", "cut", "paste", "sort", "diff", "cmp", "comm", "fold", "fmt",
  "expand", "unexpand", "column", "join", "bat", "batcat", "view", "vi", "vim", "nano", "emacs",
  "readlink", "stat", "lsattr", "getfacl", "namei", "zcat", "bzcat", "xzcat", "zless", "zmore",
  "basenc", "hd", "pr", "tsort", "diff3", "sdiff", "iconv", "uptime",
]);

/** Compressors replace each operand by its (de)compressed file unless writing to stdout. */
const COMPRESSORS = new Set(["gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "lzma", "unlzma", "zstd", "unzstd", "lz4", "compress", "uncompress"]);

/** Commands that read (list, walk, resolve) the directories and files they are given. */
const LISTS_OPERANDS = new Set(["ls", "dir", "vdir", "du", "tree", "realpath", "file"]);

/** Commands whose operands are all files they write, create or delete. */
const WRITES_ALL_OPERANDS = new Set(["tee", "touch", "rm", "rmdir", "mkdir", "shred", "unlink", "truncate", "mv", "mkfifo"]);

/** Commands with a case of their own below (any other command has no operand targets). */
export const HAS_TARGET_RULES = new Set([
  "cd", "pushd", "cp", "ln", "install", "mv", "chmod", "chown", "chgrp", "sed",
  "awk", "gawk", "mawk", "nawk", "grep", "egrep", "fgrep", "zgrep", "zegrep", "zfgrep", "rg", "jq", "sort",
  "uniq", "xxd", "dd", "time", "tree", "git", "find", "tar", "curl", "wget",
  "source", ".", "rsync", "scp", "patch", "unzip", "perl", "ruby", "split", "csplit", "mknod",
  "date", "shuf", "look", "test", "[", "script",
  ...COMPRESSORS,
]);

/** Whether the target extractor models this command's operands. */
export function hasTargetModel(name: string): boolean {
  return READS_ALL_OPERANDS.has(name) || WRITES_ALL_OPERANDS.has(name) || LISTS_OPERANDS.has(name) || HAS_TARGET_RULES.has(name);
}

export function commandTargets(cmd: SimpleCommand, ctx: BackupContext = { suffixMayBeSet: false }): Targets {
  const t: Targets = { write: [], read: [], cd: [] };
  for (const r of cmd.redirects) {
    const target = r.target?.text;
    if (target === undefined) continue;
    if (isWriteRedirect(r)) {
      if (target !== "/dev/null") t.write.push(target);
      if (r.op === "<>") t.read.push(target);
    } else if (r.op === "<") t.read.push(target);
  }
  const first = cmd.words[0];
  if (!first || cmd.declaration) return t;
  // `GIT_TRACE=/tmp/x git status` appends the trace to /tmp/x (of any git the command runs).
  for (const { name, value } of cmd.env) {
    const file = gitTraceFile(name, value);
    if (file !== undefined) t.write.push(file);
  }
  // Pathname expansion reads the directories a glob walks: the glob stays as written (unknown).
  for (const w of cmd.words) if (w.glob) t.read.push(w.text);
  const name = first.text.slice(first.text.lastIndexOf("/") + 1);
  if (!READS_ALL_OPERANDS.has(name) && !WRITES_ALL_OPERANDS.has(name) && !LISTS_OPERANDS.has(name) && !HAS_TARGET_RULES.has(name) && !tableFor(name)) return t;
  const words = cmd.words;
  const parsed = name === "tar" ? tarParse(words) : parseCommand(name, words);
  // `<(cmd)` / `>(cmd)` operands are pipes, not paths; `@FILE` of a tool with response files is read below.
  const operands = parsed.operands
    .filter((o) => !/^[<>]\(/.test(o.word.raw))
    .map((o) => o.word.text);
  const optionValues = (short: string, long: string[]): string[] => valuesOf(parsed, short, long);

  if (READS_ALL_OPERANDS.has(name)) t.read.push(...operands.filter((o) => o !== "-"));
  tableTargets(name, parsed, t);
  // `sha256sum -c SUMS` reads the files SUMS lists.
  if (/sum$/.test(name) && findOption(parsed, "c", ["check"])) {
    for (const o of operands.length > 0 ? operands : ["-"]) t.read.push(unnamedFiles(`files listed in ${o === "-" ? "standard input" : o}`));
  }
  if (LISTS_OPERANDS.has(name)) listingTargets(name, parsed, operands, t);
  if (WRITES_ALL_OPERANDS.has(name)) t.write.push(...operands.filter((o) => o !== "/dev/null"));
  if (name === "cp" || name === "mv" || name === "ln" || name === "install") {
    backupTargets(name, parsed, operands, new Map(cmd.env.map((e) => [e.name, e.value.text])), ctx, t);
  }

  switch (name) {
    case "cd":
    case "pushd": {
      const dir = operands[0];
      t.cd.push(dir ?? "~");
      break;
    }
    case "cp":
    case "ln":
    case "install": {
      const targetDir = optionValues("t", ["target-directory"]);
      if (targetDir.length > 0) {
        // The directory itself is a write target by the table.
        if (name === "cp") t.read.push(...operands);
      } else if (name === "install" && findOption(parsed, "d", ["directory"])) {
        t.write.push(...operands);
      } else if (name === "ln" && operands.length === 1) {
        // `ln TARGET` makes ./basename(TARGET).
        t.write.push(posix.basename(operands[0] as string));
      } else if (operands.length > 1) {
        t.write.push(operands[operands.length - 1] as string);
        if (name === "cp") t.read.push(...operands.slice(0, -1));
      }
      break;
    }
    case "mv":
      break;
    case "chmod":
    case "chown":
    case "chgrp": {
      // `chmod -w f`: the mode is written like an option, and every operand is a file.
      const modeAsOption = name === "chmod" && parsed.options.some((o) => /^-[rwxXstugoa0-9]$/.test(o.name));
      t.write.push(...(findOption(parsed, "", ["reference"]) || modeAsOption ? operands : operands.slice(1)));
      break;
    }
    case "sed": {
      const scripts = optionValues("e", ["expression"]);
      const fromOptions = scripts.length > 0 || optionValues("f", ["file"]).length > 0;
      const files = fromOptions ? operands : operands.slice(1);
      if (!fromOptions && operands[0] !== undefined) scripts.push(operands[0]);
      t.read.push(...files);
      if (findOption(parsed, "i", ["in-place"])) t.write.push(...files);
      // Files the script itself names: `w out`, `s/a/b/w out`, `r in`.
      const named = { writes: [] as string[], reads: [] as string[] };
      for (const script of scripts) sedScriptObjection(script, named);
      t.write.push(...named.writes.filter((f) => f !== "/dev/null" && f !== "/dev/stdout" && f !== "/dev/stderr"));
      t.read.push(...named.reads);
      break;
    }
    case "awk":
    case "gawk":
    case "mawk":
    case "nawk": {
      const hasProgram = optionValues("fe", ["file", "source"]).length > 0;
      t.read.push(...(hasProgram ? operands : operands.slice(1)).filter((o) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(o)));
      t.read.push(...optionValues("f", ["file"]));
      // Files the program names: `print > "out"`, `getline < "in"` (found by the awk tokenizer).
      const programs = [...optionValues("e", ["source"]), ...(hasProgram ? [] : operands.slice(0, 1))];
      const named = { writes: [] as string[], reads: [] as string[] };
      for (const program of programs) awkProgramObjection(program, named);
      t.write.push(...named.writes);
      t.read.push(...named.reads);
      break;
    }
    case "grep":
    case "egrep":
    case "fgrep":
    case "zgrep":
    case "zegrep":
    case "zfgrep":
    case "rg": {
      const patternGiven = optionValues("ef", ["regexp", "file"]).length > 0 || (name === "rg" && findOption(parsed, "", ["files"]));
      const files = patternGiven ? operands : operands.slice(1);
      t.read.push(...files);
      if (files.length === 0 && searchesCurrentDir(name, parsed, cmd)) t.read.push(".");
      break;
    }
    case "jq":
      t.read.push(...jqReadTargets(words));
      break;
    case "sort":
      break;
    case "uniq":
    case "xxd": {
      const files = name === "xxd" ? xxdParse(words).operands : operands;
      if (files[0] !== undefined && files[0] !== "-") t.read.push(files[0]);
      if (files[1] !== undefined) t.write.push(files[1]);
      break;
    }
    case "dd":
      for (const op of operands) {
        if (op.startsWith("of=")) t.write.push(op.slice(3));
        if (op.startsWith("if=")) t.read.push(op.slice(3));
      }
      break;
    case "time":
    case "tree":
      break;
    case "git": {
      gitTargets(words, t);
      break;
    }
    case "patch":
      patchTargets(parsed, operands, t);
      break;
    case "unzip":
      unzipTargets(words, t);
      break;
    case "perl":
    case "ruby":
      scriptLanguageTargets(name, words, t);
      break;
    case "split":
    case "csplit":
      splitTargets(name, parsed, operands, t);
      break;
    case "gzip": case "gunzip": case "bzip2": case "bunzip2": case "xz": case "unxz": case "lzma":
    case "unlzma": case "zstd": case "unzstd": case "lz4": case "compress": case "uncompress": {
      const files = operands.filter((o) => o !== "-");
      t.read.push(...files);
      const toStdout = findOption(parsed, "ctl", ["stdout", "to-stdout", "test", "list"]);
      if (!toStdout) t.write.push(...files);
      break;
    }
    case "shuf":
      // `shuf -e words…` / `-i lo-hi` shuffle their arguments, not a file.
      if (!findOption(parsed, "ei", ["echo", "input-range"])) t.read.push(...operands.filter((o) => o !== "-"));
      break;
    case "look":
      // look [-df] [-t char] string [file]
      if (operands[1] !== undefined) t.read.push(operands[1]);
      break;
    case "test":
    case "[":
      testTargets(words, t);
      break;
    case "mknod":
      if (operands[0] !== undefined) t.write.push(operands[0]);
      break;
    case "find":
      findTargets(words, t);
      break;
    case "tar":
      tarTargets(words, t);
      break;
    case "curl":
    case "wget":
      break;
    case "script": {
      // `script [file]` records the session into file (default ./typescript) unless -c's output only is wanted.
      const file = operands[0] ?? "typescript";
      if (file !== "/dev/null" && file !== "-") t.write.push(file);
      break;
    }
    case "source":
    case ".":
      if (operands[0] !== undefined) t.read.push(operands[0]);
      break;
    case "rsync":
    case "scp":
      if (operands.length > 1) {
        t.write.push(operands[operands.length - 1] as string);
        t.read.push(...operands.slice(0, -1));
      }
      break;
  }
  return t;
}

function findTargets(words: Word[], t: Targets): void {
  const starts: string[] = [];
  let i = 1;
  // Leading options: -H -L -P, -D debugopts, -Olevel.
  for (; i < words.length; i++) {
    const text = (words[i] as Word).text;
    if (text === "-D") i++;
    else if (!/^-([HLP]+|O\d*)$/.test(text)) break;
  }
  for (; i < words.length; i++) {
    const text = (words[i] as Word).text;
    if (text.startsWith("-") || text === "(" || text === "!") break;
    starts.push(text);
  }
  for (; i < words.length; i++) {
    const text = (words[i] as Word).text;
    const value = words[i + 1]?.text;
    if (/^-(fprint|fprint0|fls)$/.test(text) && value !== undefined) t.write.push(value);
    if (text === "-fprintf" && value !== undefined) t.write.push(value);
    if (text === "-delete") t.write.push(...(starts.length > 0 ? starts : ["."]));
    if (text === "-files0-from" && value !== undefined) {
      // The starting points come from a file (or stdin): what find walks is not on the command line.
      if (value !== "-") t.read.push(value);
      starts.push(unnamedFiles(`starting points listed in ${value === "-" ? "standard input" : value}`));
    }
  }
  // find walks its starting points (the current directory when none is given).
  t.read.push(...(starts.length > 0 ? starts : ["."]));
}

