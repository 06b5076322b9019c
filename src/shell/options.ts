// Reading a command's argv through its option table (commands/), and what the table says its
// option values are: the files it reads and writes, the programs it runs. Shared by the
// read-only classifier and the target extractor, so that both see the same parse.
import { tableFor, type CommandTable } from "./commands/index.js";
import { getopt, type ParsedArgs, type ParsedOption } from "./getopt.js";
import type { Targets } from "./commands/types.js";
import type { Word } from "./words.js";

export { findOption, optionValues, type ParsedArgs, type ParsedOption } from "./getopt.js";

/** Commands without a table: any option is accepted and takes no value unless written `--x=v`. */
const PERMISSIVE: CommandTable = { partial: true };

/** argv (from `start`) as the command named `name` reads it (getopt keeps the last few parses). */
export function parseCommand(name: string, words: readonly Word[], start = 1): ParsedArgs {
  return getopt(words, tableFor(name) ?? PERMISSIVE, start);
}

/** The role the table gives this parsed option's value, if any: by its name, or a paired letter's long name. */
function roleOf(table: CommandTable, o: ParsedOption, map: CommandTable["values"]): string | undefined {
  if (!map) return undefined;
  for (const name of o.long === undefined ? [o.name] : [o.name, o.long]) {
    const key = name.startsWith("--") ? name.slice(2) : name.slice(1);
    if (Object.hasOwn(map, key)) return map[key];
  }
  return undefined;
}

/** A placeholder target for files a command reads or writes that its argv does not name. */
export function unnamedFiles(what: string): string {
  return `$(${what})`;
}

/** Files named by option values and response-file operands, by the roles the table gives them. */
export function tableTargets(name: string, parsed: ParsedArgs, t: Targets, table = tableFor(name)): void {
  if (!table) return;
  for (const o of parsed.options) {
    if (o.negated) continue;
    const role = roleOf(table, o, table.values);
    const v = o.value?.text;
    if (role === undefined || v === undefined) continue;
    switch (role) {
      case "read":
      case "program":
        if (v !== "-") t.read.push(v);
        break;
      case "write":
        if (v !== "-" && v !== "/dev/null") t.write.push(v);
        break;
      case "list":
        if (v !== "-" && v !== "") t.read.push(v);
        t.read.push(unnamedFiles(`files listed in ${v === "-" || v === "" ? "standard input" : v}`));
        break;
      case "config":
        if (v !== "-") t.read.push(v);
        t.write.push(unnamedFiles(`files named in ${v === "-" ? "standard input" : v}`));
        break;
      case "data": {
        const file = o.name === "--data-urlencode" ? /^[^=]*@(.+)$/.exec(v)?.[1] : v.startsWith("@") ? v.slice(1) : undefined;
        if (file !== undefined && file !== "-") t.read.push(file);
        break;
      }
      case "form": {
        const file = /^[^=]*=[@<]([^;]*)/.exec(v)?.[1];
        if (file !== undefined && file !== "-") t.read.push(file);
        break;
      }
      case "cookie":
        if (!v.includes("=") && v !== "-") t.read.push(v);
        break;
      case "date":
        if (/^[/.~]/.test(v)) t.read.push(v);
        break;
    }
  }
  if (table.responseFiles) {
    for (const op of parsed.operands) {
      const text = op.word.text;
      if (!text.startsWith("@") || text.length < 2) continue;
      t.read.push(text.slice(1), unnamedFiles(`files and options named in ${text}`));
    }
  }
}

const NOT_READ_ONLY: Record<string, string> = {
  write: "writes a file",
  exec: "runs a program",
  unsafe: "is not read-only",
  config: "reads a configuration that may write files",
  program: "runs a program from a file",
};

/** Why this parse is not read-only by its table (refused options, writes, programs), or undefined. */
export function tableObjection(name: string, parsed: ParsedArgs): string | undefined {
  const table = tableFor(name);
  if (!table) return undefined;
  const error = parsed.errors[0];
  if (error !== undefined) return `${name}: ${error}, so what it does is not known`;
  for (const o of parsed.options) {
    if (o.negated) continue;
    const effect = roleOf(table, o, table.effects);
    if (effect !== undefined) return `${name} ${o.name} ${NOT_READ_ONLY[effect] ?? "is not read-only"}`;
    const role = roleOf(table, o, table.values);
    if (role !== undefined && Object.hasOwn(NOT_READ_ONLY, role)) return `${name} ${o.name} ${NOT_READ_ONLY[role]}`;
  }
  if (table.responseFiles) {
    const at = parsed.operands.find((o) => o.word.text.startsWith("@") && o.word.text.length > 1);
    if (at) return `${name} ${at.word.text} reads options and file names from a response file`;
  }
  return undefined;
}

/**
 * xxd's own option reader: options come before the operands; `-x` and `--x` are the same; an
 * option is known by its first letter (`-ps` = `-postscript`); a valued option takes the next
 * word when written alone or with the rest of its long name (`-o 5`, `-offset 5`), and the rest
 * of the word otherwise (`-o5`, and `-of` = offset "f").
 */
export function xxdParse(words: readonly Word[]): { operands: string[]; options: Array<{ letter: string; value?: string }>; errors: string[] } {
  const valued: Record<string, string> = { c: "ols", g: "roupsize", l: "en", s: "eek", o: "ffset", n: "ame", R: "" };
  const flags = "abCdeEhiprRuvtU";
  const out = { operands: [] as string[], options: [] as Array<{ letter: string; value?: string }>, errors: [] as string[] };
  let i = 1;
  for (; i < words.length; i++) {
    const raw = (words[i] as Word).text;
    if (raw === "--") {
      i++;
      break;
    }
    const t = raw.startsWith("--") && raw.length > 2 ? raw.slice(1) : raw;
    if (!t.startsWith("-") || t === "-") break;
    const letter = t[1] as string;
    const rest = valued[letter];
    if (rest !== undefined && letter !== "R") {
      const tail = t.slice(2);
      if (tail === "" || (rest !== "" && tail.startsWith(rest))) {
        out.options.push({ letter, value: words[i + 1]?.text });
        i++;
      } else out.options.push({ letter, value: tail });
      continue;
    }
    if (letter === "R") {
      // -R when: colour; the value is the next word.
      out.options.push({ letter, value: words[i + 1]?.text });
      i++;
      continue;
    }
    if (!flags.includes(letter)) out.errors.push(`unknown option ${raw}`);
    out.options.push({ letter });
  }
  out.operands = words.slice(i).map((w) => w.text);
  return out;
}
