// Command-line option helpers shared by the read-only classifier and the target extractor.
// GNU tools accept any unambiguous prefix of a long option (`sort --compress=sh` is
// `--compress-program=sh`), so dangerous long options are matched by prefix.
import type { Word } from "./words.js";

export interface ArgSpec {
  /** Short options that take a value (`-n 5` or `-n5`). */
  short?: string;
  /** Long options that take a value (`--lines 5` or `--lines=5`). */
  long?: readonly string[];
}

/** Per-command options that take a value: needed to tell operands from option values. */
export const ARG_SPECS: Record<string, ArgSpec> = {
  head: { short: "nc", long: ["lines", "bytes"] },
  tail: { short: "ncs", long: ["lines", "bytes", "sleep-interval", "pid", "max-unchanged-stats"] },
  grep: { short: "efmABCdD", long: ["regexp", "file", "max-count", "after-context", "before-context", "context", "directories", "devices", "include", "exclude", "exclude-from", "exclude-dir", "label", "binary-files", "group-separator"] },
  rg: { short: "efmABCgtTEMjrd", long: ["regexp", "file", "glob", "iglob", "type", "type-not", "type-add", "type-clear", "replace", "max-count", "max-depth", "max-filesize", "max-columns", "threads", "encoding", "after-context", "before-context", "context", "sort", "sortr", "colors", "context-separator", "field-match-separator", "field-context-separator", "path-separator", "pre", "pre-glob", "ignore-file", "engine", "dfa-size-limit", "regex-size-limit", "hostname-bin", "hyperlink-format", "generate"] },
  sed: { short: "efl", long: ["expression", "file", "line-length"] },
  awk: { short: "fvFeilE", long: ["field-separator", "assign", "file", "source", "include", "load", "exec"] },
  sort: { short: "kotTS", long: ["key", "output", "field-separator", "temporary-directory", "buffer-size", "compress-program", "files0-from", "random-source", "parallel", "batch-size"] },
  uniq: { short: "fsw", long: ["skip-fields", "skip-chars", "check-chars"] },
  cut: { short: "bcdf", long: ["bytes", "characters", "delimiter", "fields", "output-delimiter"] },
  cp: { short: "tS", long: ["target-directory", "suffix"] },
  mv: { short: "tS", long: ["target-directory", "suffix"] },
  ln: { short: "tS", long: ["target-directory", "suffix"] },
  install: { short: "tmogS", long: ["target-directory", "mode", "owner", "group", "suffix", "strip-program"] },
  truncate: { short: "sr", long: ["size", "reference"] },
  touch: { short: "drt", long: ["date", "reference"] },
  mkdir: { short: "m", long: ["mode"] },
  chmod: { long: ["reference"] },
  chown: { long: ["reference", "from"] },
  chgrp: { long: ["reference"] },
  nl: { short: "bdfhilnsvw" },
  // od -w[BYTES] takes its value attached only.
  od: { short: "AjNSt", long: ["address-radix", "skip-bytes", "read-bytes", "strings", "format", "endian"] },
  base64: { short: "w" },
  base32: { short: "w" },
  xxd: { short: "cglsonC" },
  diff: { short: "ULIFxXSD", long: ["label", "ignore-matching-lines", "show-function-line", "exclude", "exclude-from", "starting-file", "to-file", "from-file", "line-format", "horizon-lines"] },
  wc: { long: ["files0-from"] },
  jq: { short: "f", long: ["indent", "from-file"] },
  tar: { short: "fCbFgHIKLNTVX", long: ["file", "directory", "blocking-factor", "info-script", "new-volume-script", "listed-incremental", "format", "use-compress-program", "starting-file", "tape-length", "newer", "after-date", "files-from", "label", "exclude-from", "to-command", "checkpoint-action", "rsh-command", "rmt-command", "index-file", "volno-file", "owner", "group", "mode", "mtime", "exclude", "transform", "xform", "strip-components", "suffix", "backup"] },
  curl: { short: "oOdHXuAeEFTwxKbcDrzY", long: ["output", "data", "header", "request", "user", "user-agent", "referer", "cert", "form", "upload-file", "write-out", "proxy", "config", "cookie", "cookie-jar", "dump-header", "range", "time-cond", "output-dir"] },
  wget: { short: "OPoaeiDlQtTUwY", long: ["output-document", "directory-prefix", "output-file", "append-output", "execute", "input-file", "user-agent", "tries", "timeout", "level"] },
  find: {},
  ls: { short: "ITw", long: ["block-size", "format", "hide", "ignore", "indicator-style", "quoting-style", "sort", "tabsize", "time", "time-style", "width"] },
  dir: { short: "ITw", long: ["block-size", "format", "hide", "ignore", "indicator-style", "quoting-style", "sort", "tabsize", "time", "time-style", "width"] },
  vdir: { short: "ITw", long: ["block-size", "format", "hide", "ignore", "indicator-style", "quoting-style", "sort", "tabsize", "time", "time-style", "width"] },
  stat: { short: "c", long: ["format", "printf"] },
  du: { short: "dBtX", long: ["max-depth", "block-size", "threshold", "exclude", "exclude-from", "time-style", "files0-from"] },
  tree: { short: "LPIoHT", long: ["charset", "filelimit", "timefmt", "sort", "infofile", "gitfile", "hintro", "houtro"] },
  realpath: { long: ["relative-to", "relative-base"] },
  file: { short: "mfFeP", long: ["magic-file", "files-from", "separator", "exclude", "exclude-quiet", "parameter"] },
  patch: { short: "pdiorBDFYVzgx", long: ["strip", "directory", "input", "output", "reject-file", "prefix", "ifdef", "fuzz", "basename-prefix", "version-control", "suffix", "get", "debug", "quoting-style", "reject-format", "read-only"] },
  split: { short: "abClnt", long: ["suffix-length", "additional-suffix", "bytes", "line-bytes", "lines", "number", "separator", "filter"] },
  csplit: { short: "bfn", long: ["suffix-format", "prefix", "digits"] },
  mkfifo: { short: "m", long: ["mode"] },
  mknod: { short: "m", long: ["mode"] },
  zstd: { short: "oD" },
  unzstd: { short: "oD" },
  git: { long: ["contents"] },
  date: { short: "dfrs", long: ["date", "file", "reference", "set"] },
  sdiff: { short: "oIw", long: ["output", "ignore-matching-lines", "width", "diff-program", "tabsize"] },
  diff3: { short: "L", long: ["label", "diff-program"] },
  cmp: { short: "in", long: ["ignore-initial", "bytes"] },
  join: { short: "aejotv12" },
  paste: { short: "d", long: ["delimiters"] },
  fold: { short: "w", long: ["width"] },
  fmt: { short: "wpg", long: ["width", "prefix", "goal"] },
  strings: { short: "ntTes", long: ["bytes", "radix", "target", "encoding", "output-separator"] },
  basenc: { short: "w", long: ["wrap"] },
  hexdump: { short: "efns" },
  hd: { short: "efns" },
  shuf: { short: "ino", long: ["input-range", "head-count", "output", "random-source"] },
  look: { short: "t" },
  iconv: { short: "fto", long: ["from-code", "to-code", "output"] },
};

export interface ParsedArgs {
  /** Operands (non-option words) with their positions. */
  operands: Array<{ word: Word; index: number }>;
  /** Options with their value, when they take one. `name` is `-x` or `--long`. */
  options: Array<{ name: string; value?: Word; index: number }>;
}

/**
 * Splits argv (without the command name) into options and operands, GNU style: options may
 * follow operands until `--`. Clustered short options are expanded (`-rn5` → `-r`, `-n 5`).
 */
export function parseArgs(words: Word[], spec: ArgSpec = {}, start = 1): ParsedArgs {
  const out: ParsedArgs = { operands: [], options: [] };
  for (let i = start; i < words.length; i++) {
    const w = words[i] as Word;
    const t = w.text;
    if (t === "--") {
      for (let k = i + 1; k < words.length; k++) out.operands.push({ word: words[k] as Word, index: k });
      break;
    }
    if (t.startsWith("--") && t.length > 2) {
      const eq = t.indexOf("=");
      const name = eq === -1 ? t.slice(2) : t.slice(2, eq);
      if (eq !== -1) out.options.push({ name: "--" + name, value: { ...w, text: t.slice(eq + 1) }, index: i });
      else if (spec.long?.includes(name) && i + 1 < words.length) {
        out.options.push({ name: "--" + name, value: words[i + 1] as Word, index: i });
        i++;
      } else out.options.push({ name: "--" + name, index: i });
      continue;
    }
    if (t.length > 1 && t.startsWith("-")) {
      for (let k = 1; k < t.length; k++) {
        const c = t[k] as string;
        if (spec.short?.includes(c)) {
          if (k < t.length - 1) out.options.push({ name: "-" + c, value: { ...w, text: t.slice(k + 1) }, index: i });
          else if (i + 1 < words.length) {
            out.options.push({ name: "-" + c, value: words[i + 1] as Word, index: i });
            i++;
          } else out.options.push({ name: "-" + c, index: i });
          break;
        }
        out.options.push({ name: "-" + c, index: i });
      }
      continue;
    }
    out.operands.push({ word: w, index: i });
  }
  return out;
}

/** True when `--name` (as given, possibly abbreviated) may select one of `dangerous`. */
export function isLongPrefixOf(name: string, dangerous: readonly string[]): boolean {
  if (!name.startsWith("--")) return false;
  const given = name.slice(2);
  if (given === "") return false;
  return dangerous.some((d) => d.startsWith(given));
}

/** The first option among `options` that is one of `short` chars or a prefix of `long`. */
export function findOption(
  parsed: ParsedArgs,
  short: string,
  long: readonly string[],
): { name: string; value?: Word } | undefined {
  return parsed.options.find(
    (o) => (o.name.length === 2 && o.name[0] === "-" && short.includes(o.name[1] as string)) || isLongPrefixOf(o.name, long),
  );
}

/**
 * xxd's operands: its options are single-dash words matched by their first letter (`-ps` is
 * `-postscript`, `-cols 8` = `-c 8` = `-c8`), so GNU clustering would misread `-ps in out`.
 */
export function xxdOperands(words: readonly Word[]): string[] {
  const operands: string[] = [];
  for (let i = 1; i < words.length; i++) {
    const t = (words[i] as Word).text;
    if (t === "--") {
      operands.push(...words.slice(i + 1).map((w) => w.text));
      break;
    }
    if (t.length < 2 || !t.startsWith("-")) {
      operands.push(t);
      continue;
    }
    const valued = /^-([cglsonR])(.*)$/.exec(t);
    if (!valued) continue;
    const rest = valued[2] as string;
    const longName = { c: "cols", g: "groupsize", l: "len", s: "seek", o: "offset", n: "name", R: "" }[valued[1] as string] as string;
    if (rest === "" || (longName !== "" && longName.slice(1).startsWith(rest))) i++;
  }
  return operands;
}
