// Targets of commands whose arguments need more than "every operand is a file": tools that
// change into a directory first (patch -d), extract into one (unzip -d), edit in place
// (perl -i), create files from a prefix (split), and the recursive readers that read the
// current directory when no path is given.
import { posix } from "node:path";
import { findOption, type ParsedArgs } from "./options.js";
import type { SimpleCommand } from "./command.js";
import type { Targets } from "./commands/types.js";
import type { Word } from "./words.js";

/** Directory readers: what they list (or walk) is read, `.` when no operand and recursive. */
export function listingTargets(name: string, parsed: ParsedArgs, operands: string[], t: Targets): void {
  // Option values (du -X, realpath --relative-to, file -m) are read by their tables' roles.
  t.read.push(...operands);
  if (operands.length > 0 || findOption(parsed, "", ["files0-from"])) return;
  const recursive =
    name === "du" || name === "tree" ||
    ((name === "ls" || name === "dir" || name === "vdir") && findOption(parsed, "R", ["recursive"]) !== undefined);
  if (recursive) t.read.push(".");
}

/** grep: recursive with no file operand searches `.`; rg searches `.` unless fed a pipe or a file. */
export function searchesCurrentDir(name: string, parsed: ParsedArgs, cmd: SimpleCommand): boolean {
  if (name === "rg") {
    if (findOption(parsed, "", ["type-list", "version", "help", "generate"])) return false;
    const stdinRedirected = cmd.redirects.some((r) => (r.fd ?? "0") === "0" && /^(<|<<|<<-|<<<|<&)$/.test(r.op));
    return !cmd.pipedInput && !stdinRedirected;
  }
  const recurse = parsed.options.some(
    (o) => /^-[rR]$|^--(recursive|dereference-recursive)$/.test(o.name) ||
      (/^(-d|--directories)$/.test(o.name) && o.value?.text === "recurse"),
  );
  return recurse;
}

/** `patch [-d dir] [original [patchfile]]`: patch changes into dir first; no original = any file under it. */
export function patchTargets(parsed: ParsedArgs, operands: string[], t: Targets): void {
  const value = (re: RegExp): string | undefined => parsed.options.find((o) => re.test(o.name))?.value?.text;
  const dir = value(/^(-d|--directory)$/);
  const at = (p: string): string => (dir === undefined || p.startsWith("/") || p.startsWith("~") ? p : posix.join(dir, p));
  const original = operands[0];
  t.write.push(original !== undefined ? at(original) : dir ?? ".");
  const patchFile = operands[1] ?? value(/^(-i|--input)$/);
  if (patchFile !== undefined && patchFile !== "-") t.read.push(at(patchFile));
  for (const out of [value(/^(-o|--output)$/), value(/^(-r|--reject-file)$/)]) {
    if (out !== undefined && out !== "-") t.write.push(at(out));
  }
}

/** `unzip [-opts] archive [members] [-x excluded] [-d exdir]`: extracts into exdir or `.`. */
export function unzipTargets(words: Word[], t: Targets): void {
  let archive: string | undefined;
  let dir: string | undefined;
  let onlyReads = false;
  let excluding = false;
  for (let i = 1; i < words.length; i++) {
    const w = (words[i] as Word).text;
    if (w.startsWith("-") && w.length > 1) {
      excluding = w === "-x";
      const letters = w.slice(1);
      // List, test, print to stdout, comment, zipinfo mode: nothing is written.
      if (/[lvtcpzZ]/.test(letters.replace(/[dP].*$/, ""))) onlyReads = true;
      const d = letters.indexOf("d");
      const p = letters.indexOf("P");
      if (d !== -1 && (p === -1 || d < p)) {
        dir = letters.slice(d + 1) || words[++i]?.text;
      } else if (p !== -1 && p === letters.length - 1) i++;
      continue;
    }
    if (excluding) continue;
    if (archive === undefined) archive = w;
  }
  if (archive !== undefined) t.read.push(archive);
  if (!onlyReads) t.write.push(dir ?? ".");
}

/**
 * perl / ruby: `-i[ext]` edits the files named after the program in place; `-n`/`-p` read them.
 * `-e CODE` gives the program, else the first operand is the script file.
 */
export function scriptLanguageTargets(name: "perl" | "ruby", words: Word[], t: Targets): void {
  let inPlace = false;
  let loop = false;
  let inlineCode = false;
  let i = 1;
  // Switches that take the rest of the cluster, or the next word when nothing follows.
  const valued = name === "perl" ? "IMm" : "IrCEFK";
  const optionalAttached = name === "perl" ? "lo0CxdDV" : "xl0TWK";
  scan: for (; i < words.length; i++) {
    const w = (words[i] as Word).text;
    if (w === "--") {
      i++;
      break;
    }
    if (!w.startsWith("-") || w === "-") break;
    for (let k = 1; k < w.length; k++) {
      const c = w[k] as string;
      if (c === "i") {
        inPlace = true; // the rest of the cluster is the backup extension
        continue scan;
      }
      if (c === "e" || (c === "E" && name === "perl")) {
        inlineCode = true;
        if (k === w.length - 1) i++;
        continue scan;
      }
      if (c === "n" || c === "p") loop = true;
      if (valued.includes(c)) {
        if (k === w.length - 1) i++;
        continue scan;
      }
      if (optionalAttached.includes(c)) continue scan;
      if (c === "-") continue scan; // --long options (ruby): no value modelled
    }
  }
  const operands = words.slice(i).map((w) => w.text);
  if (!inlineCode && operands[0] !== undefined) t.read.push(operands.shift() as string);
  if (inPlace) t.write.push(...operands);
  if (inPlace || loop) t.read.push(...operands.filter((o) => o !== "-"));
}

/** split [input [prefix]] / csplit [-f prefix] input patterns: new files named from the prefix. */
export function splitTargets(name: string, parsed: ParsedArgs, operands: string[], t: Targets): void {
  const input = operands[0];
  if (input !== undefined && input !== "-") t.read.push(input);
  const prefix = name === "split" ? operands[1] : parsed.options.find((o) => /^(-f|--prefix)$/.test(o.name))?.value?.text;
  t.write.push(prefix ?? ".");
}

/** Where a backup's suffix comes from when the command line does not give one. */
export interface BackupContext {
  /** The script may set SIMPLE_BACKUP_SUFFIX / VERSION_CONTROL for later commands (export, set -a, source…). */
  suffixMayBeSet: boolean;
}

/**
 * cp/mv/ln/install `-b` / `--backup[=CONTROL]` / `-S SUFFIX` rename the file they replace to
 * DEST+SUFFIX (`cp -b --suffix=t x .gi` makes `.git`). The suffix is `-S`, else the command's
 * SIMPLE_BACKUP_SUFFIX, else `~`; numbered backups (`.~N~`) are reported as a non-static name.
 * The destination may be a directory: then DEST/basename(SOURCE)+SUFFIX is written instead.
 */
export function backupTargets(
  name: string, parsed: ParsedArgs, operands: string[], env: ReadonlyMap<string, string>, ctx: BackupContext, t: Targets,
): void {
  const suffixOption = findOption(parsed, "S", ["suffix"]);
  const backupOption = findOption(parsed, "b", ["backup"]);
  if (!suffixOption && !backupOption) return;
  if (name === "install" && findOption(parsed, "d", ["directory"])) return;
  const control = (backupOption?.name.startsWith("--") ? backupOption.value?.text : undefined) ?? env.get("VERSION_CONTROL");
  if (control !== undefined && /^(none|off)$/.test(control)) return;
  const suffixes: string[] = [];
  if (suffixOption) suffixes.push(suffixOption.value?.text ?? "$SIMPLE_BACKUP_SUFFIX");
  else {
    const fromEnv = env.get("SIMPLE_BACKUP_SUFFIX");
    suffixes.push(fromEnv ?? "~");
    if (fromEnv === undefined && ctx.suffixMayBeSet) suffixes.push("$SIMPLE_BACKUP_SUFFIX");
  }
  const numbered = control === undefined ? ctx.suffixMayBeSet : !/^(simple|never)$/.test(control);
  if (numbered) suffixes.push(".~$N~");
  const dests: string[] = [];
  const dirs = parsed.options.filter((o) => /^(-t|--target-directory)$/.test(o.name)).map((o) => o.value?.text ?? "$DIR");
  if (dirs.length > 0) {
    for (const d of dirs) for (const o of operands) dests.push(posix.join(d, posix.basename(o)));
  } else if (operands.length > 1) {
    const last = operands[operands.length - 1] as string;
    dests.push(last);
    for (const o of operands.slice(0, -1)) dests.push(posix.join(last, posix.basename(o)));
  } else if (name === "ln" && operands[0] !== undefined) dests.push(posix.basename(operands[0]));
  for (const d of dests) for (const s of suffixes) t.write.push(d + s);
}

/** `test -f path` / `[ -s path ]` / `[ a -nt b ]` look at files (existence, type, size, times). */
export function testTargets(words: Word[], t: Targets): void {
  const args = words.slice(1).map((w) => w.text);
  if (words[0]?.text === "[" && args[args.length - 1] === "]") args.pop();
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    const next = args[i + 1];
    if (/^-[abcdefghkprsuwxGLNOS]$/.test(a) && next !== undefined && next !== "]") t.read.push(next);
    if (/^-(nt|ot|ef)$/.test(a)) {
      if (i > 0) t.read.push(args[i - 1] as string);
      if (next !== undefined) t.read.push(next);
    }
  }
}
