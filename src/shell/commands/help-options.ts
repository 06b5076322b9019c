// Long options as a tool's own `--help` (or git's `-h`) lists them: the table check compares
// these with the tables so that they cannot silently fall behind the installed tools.
import type { Shape } from "./types.js";

/**
 * The long options on option lines of help text. An option line starts (after indentation)
 * with `-`; its option part ends at the first run of two spaces. `--name=X` / `--name X` /
 * `--name <X>` take a value, `--name[=X]` an optional one.
 */
export function helpLongOptions(text: string): Map<string, Shape> {
  const out = new Map<string, Shape>();
  for (const line of text.split("\n")) {
    const trimmed = line.trim();
    if (!trimmed.startsWith("-")) continue;
    // The option part: the leading fields that start with `-` (`-c  --format=FORMAT  use…`).
    const fields = trimmed.split(/\s{2,}|\t/);
    const head: string[] = [];
    for (const f of fields) {
      if (!f.startsWith("-")) break;
      head.push(f);
    }
    const part = head.join(" ");
    for (const m of part.matchAll(/--(\[no-\])?([A-Za-z0-9][A-Za-z0-9-]*)(\[=|=|\s+<|\s+[A-Z]|\[)?/g)) {
      const name = m[2] as string;
      // `--GTYPE-group-format`, `--LTYPE-line-format`: templates for several options, not options.
      if (/^[A-Z]+-/.test(name)) continue;
      const tail = m[3] ?? "";
      const shape: Shape = tail.startsWith("[") ? "optional" : tail === "" ? "none" : "required";
      if (!out.has(name)) out.set(name, shape);
      if (m[1]) out.set(`no-${name}`, "none");
    }
  }
  return out;
}

/**
 * The short letters help text gives for each long option on one option line (`-o, --output=FILE`,
 * `-r, -R, --recursive`, `-e PATTERN, --regexp=PATTERN`, git's `-n, --[no-]dry-run`): long name →
 * its letters. A line naming several long options pairs its letters with the first; a letter
 * given on several lines pairs with none.
 */
export function helpOptionPairs(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split("\n")) {
    const trimmed = line.trim();
    if (!trimmed.startsWith("-") || trimmed.startsWith("--")) continue;
    const head: string[] = [];
    for (const f of trimmed.split(/\s{2,}|\t/)) {
      if (!f.startsWith("-")) break;
      head.push(f);
    }
    const part = head.join(" ");
    const long = /--(?:\[no-\])?([A-Za-z0-9][A-Za-z0-9-]*)/.exec(part);
    if (!long) continue;
    const before = part.slice(0, long.index);
    const letters = [...before.matchAll(/(?:^|[\s,])-([A-Za-z0-9])(?=[\s,=[]|$)/g)].map((m) => m[1] as string).join("");
    if (letters === "" || out.has(long[1] as string)) continue;
    out.set(long[1] as string, letters);
  }
  // A letter given for several long options (strace's `-e trace=SET, --trace=SET`) is none of them.
  const count = new Map<string, number>();
  for (const ls of out.values()) for (const l of ls) count.set(l, (count.get(l) ?? 0) + 1);
  for (const [name, ls] of out) {
    const kept = [...ls].filter((l) => count.get(l) === 1).join("");
    if (kept === "") out.delete(name);
    else out.set(name, kept);
  }
  return out;
}
