// tar's argv: GNU options, or the old style where the first word is a cluster of letters whose
// values follow as the next words in order (`tar cfT out.tar list`: f = out.tar, T = list).
import { TAR } from "./commands/network.js";
import { getopt, parseOptstring, type ParsedArgs } from "./getopt.js";
import type { Targets } from "./commands/types.js";
import type { Word } from "./words.js";

const TAR_SHORT = parseOptstring(TAR.short ?? "");

export function tarParse(words: readonly Word[]): ParsedArgs {
  const first = words[1];
  if (!first || first.text.startsWith("-") || first.text === "") return getopt(words, TAR);
  const expanded: Word[] = [words[0] as Word];
  let next = 2;
  for (const letter of first.text) {
    expanded.push({ ...first, text: `-${letter}` });
    if (TAR_SHORT.get(letter) === "required" && next < words.length) expanded.push(words[next++] as Word);
  }
  expanded.push(...words.slice(next));
  return getopt(expanded, TAR);
}

/** The archive is read (list, extract, compare) or written (create, append, update, delete); -x writes into -C or `.`. */
export function tarTargets(words: readonly Word[], t: Targets): void {
  const parsed = tarParse(words);
  const shorts = parsed.options.filter((o) => /^-.$/.test(o.name)).map((o) => o.name[1]).join("");
  const archives = parsed.options.filter((o) => o.name === "-f" || o.name === "--file").map((o) => o.value?.text ?? "");
  const dirs = parsed.options.filter((o) => o.name === "-C" || o.name === "--directory").map((o) => o.value?.text ?? "");
  const creating = /[cruA]/.test(shorts) || parsed.options.some((o) => /^--(create|append|update|catenate|delete)$/.test(o.name));
  const extracting = /x/.test(shorts) || parsed.options.some((o) => o.name === "--extract");
  const local = archives.filter((a) => a !== "-");
  if (creating) t.write.push(...local);
  else t.read.push(...local);
  if (extracting) t.write.push(...(dirs.length > 0 ? dirs : ["."]));
  // Members named on the command line are read when creating (relative to -C).
  if (creating) t.read.push(...parsed.operands.map((o) => o.word.text));
}
