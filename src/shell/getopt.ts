// One argv parser for every modelled command, faithful to glibc getopt_long and to git's
// parse-options: option permutation, `--`, clustered short options, attached and separate
// values, `--name=value`, and unambiguous prefixes of long options (an exact name wins; an
// ambiguous prefix or an unknown option is an error, as the real tool refuses it). Tables say
// what each option is (see commands/types.ts); this module only says how argv is read.
import type { CommandTable, Shape } from "./commands/types.js";
import type { Word } from "./words.js";

export interface ParsedOption {
  /** The option's canonical name: `-x`, or `--long` with the full name an abbreviation selects. */
  name: string;
  /** Its value, when it takes one and one is given (attached, `=`, or the next word). */
  value?: Word;
  /** Index of the word the option is written in. */
  index: number;
  /** Set for `--no-name` (git): the option is switched off. */
  negated?: boolean;
  /** For a short option the table pairs with a long one (`-o` is `--output`): that long name, `--output`. */
  long?: string;
}

export interface ParsedArgs {
  /** Operands (non-option words) with their positions. */
  operands: Array<{ word: Word; index: number }>;
  options: ParsedOption[];
  /** Why the real tool would refuse this argv: unknown or ambiguous options, missing values. */
  errors: string[];
  /** Index of the `--` word that ends the options, when there is one. */
  dashDash?: number;
}

interface LongSpec {
  name: string;
  shape: Shape;
  /** Names that select the same option (`--xform` is `--transform`): no ambiguity between them. */
  canonical: string;
}

interface CompiledTable {
  short: Map<string, Shape>;
  /** Short letter → `--long` of the option it is (from `long` entries written `name|x`). */
  pairs: Map<string, string>;
  long: LongSpec[];
  exact: Map<string, LongSpec>;
}

const compiledTables = new WeakMap<CommandTable, CompiledTable>();

/** `ab:c::` → a none, b required, c optional (getopt's optstring). */
export function parseOptstring(optstring: string): Map<string, Shape> {
  const out = new Map<string, Shape>();
  const s = optstring.replace(/^[+-]/, "");
  for (let i = 0; i < s.length; i++) {
    const c = s[i] as string;
    if (c === ":") continue;
    if (s[i + 1] === ":" && s[i + 2] === ":") out.set(c, "optional");
    else if (s[i + 1] === ":") out.set(c, "required");
    else out.set(c, "none");
  }
  return out;
}

/**
 * `name` none, `name=` required, `name=?` optional (only `--name=value`), `alias>name` the same
 * option; `name=|o` (any shape, then `|` and short letters) says `-o` is the same option.
 */
function parseLong(entries: readonly string[], pairs: Map<string, string>): LongSpec[] {
  const specs: LongSpec[] = [];
  const byName = new Map<string, LongSpec>();
  const aliases: Array<[string, string]> = [];
  for (const e of entries) {
    const alias = /^([^>]+)>(.+)$/.exec(e);
    if (alias) {
      aliases.push([alias[1] as string, alias[2] as string]);
      continue;
    }
    const m = /^([^=|]+)(=\??)?(?:\|([^|=]+))?$/.exec(e);
    if (!m) throw new Error(`bad long option spec: ${e}`);
    for (const letter of m[3] ?? "") pairs.set(letter, `--${m[1] as string}`);
    const shape: Shape = m[2] === "=?" ? "optional" : m[2] === "=" ? "required" : "none";
    const spec = { name: m[1] as string, shape, canonical: m[1] as string };
    specs.push(spec);
    byName.set(spec.name, spec);
  }
  for (const [alias, target] of aliases) {
    const t = byName.get(target);
    if (!t) throw new Error(`long option alias ${alias} names no option ${target}`);
    specs.push({ name: alias, shape: t.shape, canonical: t.canonical });
  }
  return specs;
}

function compile(table: CommandTable): CompiledTable {
  let c = compiledTables.get(table);
  if (c) return c;
  const pairs = new Map<string, string>();
  const long = parseLong(table.long ?? [], pairs);
  c = { short: parseOptstring(table.short ?? ""), pairs, long, exact: new Map(long.map((l) => [l.name, l])) };
  compiledTables.set(table, c);
  return c;
}

type LongMatch = { spec: LongSpec; negated: boolean } | { error: string };

function matchLong(table: CommandTable, c: CompiledTable, given: string): LongMatch {
  const style = table.style ?? "gnu";
  const exact = c.exact.get(given);
  if (exact) return { spec: exact, negated: false };
  if (style === "git") {
    // parse-options: `--no-name` switches an option off; `--name` is accepted for a `no-name` option too.
    if (given.startsWith("no-")) {
      const positive = c.exact.get(given.slice(3));
      if (positive) return { spec: { ...positive, shape: "none" }, negated: true };
    }
    const negative = c.exact.get(`no-${given}`);
    if (negative) return { spec: { ...negative, shape: "none" }, negated: true };
  }
  if (style === "exact" || given === "") return { error: `unknown option --${given}` };
  const candidates = new Map<string, { spec: LongSpec; negated: boolean }>();
  for (const l of c.long) {
    if (l.name.startsWith(given)) candidates.set(l.canonical, { spec: l, negated: false });
    if (style === "git") {
      if (`no-${l.name}`.startsWith(given) && !l.name.startsWith("no-")) candidates.set(`no-${l.canonical}`, { spec: { ...l, shape: "none" }, negated: true });
    }
  }
  if (candidates.size === 1) return [...candidates.values()][0] as { spec: LongSpec; negated: boolean };
  if (candidates.size > 1) return { error: `option --${given} is ambiguous (${[...candidates.keys()].map((k) => `--${k}`).join(", ")})` };
  return { error: `unknown option --${given}` };
}

/**
 * Reads `words[start…]` as the real tool would. Options may follow operands (permutation)
 * unless the table says the command stops at its first operand (wrappers: what follows is the
 * command they run).
 */
export function getopt(words: readonly Word[], table: CommandTable, start = 1): ParsedArgs {
  return recentParses(words, table, start, parse);
}

/**
 * The last few results of a parse of one argv, kept because several facts of one command read
 * the same parse in turn (its targets, whether it is read-only, its rule texts, its canonical
 * argv…) and callers only read results. A result is found by the argv's identity and length (an
 * argv the walk has appended words to since is parsed again) and the identities of the parse's
 * other two inputs. One of these per parser (getopt, git's argv).
 */
export function lastParses<A, B, R>(size: number, empty: R): (words: readonly Word[], a: A, b: B, compute: (words: readonly Word[], a: A, b: B) => R) => R {
  const slots = Array.from({ length: size }, () => ({ words: undefined as readonly Word[] | undefined, length: 0, a: undefined as A | undefined, b: undefined as B | undefined, result: empty }));
  let next = 0;
  return (words, a, b, compute) => {
    for (const s of slots) if (s.words === words && s.length === words.length && s.a === a && s.b === b) return s.result;
    const result = compute(words, a, b);
    const slot = slots[next]!;
    slot.words = words;
    slot.length = words.length;
    slot.a = a;
    slot.b = b;
    slot.result = result;
    next = (next + 1) % size;
    return result;
  };
}

const recentParses = lastParses<CommandTable, number, ParsedArgs>(8, { operands: [], options: [], errors: [] });

function parse(words: readonly Word[], table: CommandTable, start: number): ParsedArgs {
  const c = compile(table);
  const out: ParsedArgs = { operands: [], options: [], errors: [] };
  const valueOf = (w: Word, text: string): Word => ({ ...w, text });
  for (let i = start; i < words.length; i++) {
    const w = words[i] as Word;
    const t = w.text;
    if (t === "--") {
      out.dashDash = i;
      for (let k = i + 1; k < words.length; k++) out.operands.push({ word: words[k] as Word, index: k });
      break;
    }
    if (t.startsWith("--")) {
      const eq = t.indexOf("=");
      const given = eq === -1 ? t.slice(2) : t.slice(2, eq);
      const m = matchLong(table, c, given);
      if ("error" in m) {
        // A partial table lists only some options, so an unknown name is no error, unless it is a
        // prefix of listed ones: the tool refuses it (exact names, or ambiguous) or we cannot tell which.
        if (!table.partial || (given !== "" && c.long.some((l) => l.name.startsWith(given)))) out.errors.push(m.error);
        if (eq === -1 && table.unknownTakesValue && i + 1 < words.length) {
          out.options.push({ name: `--${given}`, value: words[i + 1] as Word, index: i });
          i++;
        } else out.options.push({ name: `--${given}`, index: i, ...(eq !== -1 ? { value: valueOf(w, t.slice(eq + 1)) } : {}) });
        continue;
      }
      const name = `--${m.spec.canonical}`;
      const negated = m.negated ? { negated: true } : {};
      if (m.spec.shape === "none") {
        if (eq !== -1) out.errors.push(`option --${m.spec.name} takes no value`);
        out.options.push({ name, index: i, ...negated });
      } else if (eq !== -1) out.options.push({ name, value: valueOf(w, t.slice(eq + 1)), index: i, ...negated });
      else if (m.spec.shape === "optional") out.options.push({ name, index: i, ...negated });
      else if (i + 1 < words.length) {
        out.options.push({ name, value: words[i + 1] as Word, index: i, ...negated });
        i++;
      } else {
        out.errors.push(`option --${m.spec.name} requires a value`);
        out.options.push({ name, index: i, ...negated });
      }
      continue;
    }
    if (t.length > 1 && t.startsWith("-")) {
      for (let k = 1; k < t.length; k++) {
        const ch = t[k] as string;
        const shape = c.short.get(ch) ?? (table.numeric && /[0-9]/.test(ch) ? "none" : undefined);
        if (shape === undefined) {
          if (!table.partial) out.errors.push(`unknown option -${ch}`);
          out.options.push({ name: `-${ch}`, index: i });
          continue;
        }
        const long = c.pairs.get(ch);
        const paired = long === undefined ? {} : { long };
        if (shape === "none") {
          out.options.push({ name: `-${ch}`, index: i, ...paired });
          continue;
        }
        const rest = t.slice(k + 1);
        if (rest !== "") out.options.push({ name: `-${ch}`, value: valueOf(w, rest), index: i, ...paired });
        else if (shape === "optional") out.options.push({ name: `-${ch}`, index: i, ...paired });
        else if (i + 1 < words.length) {
          out.options.push({ name: `-${ch}`, value: words[i + 1] as Word, index: i, ...paired });
          i++;
        } else {
          out.errors.push(`option -${ch} requires a value`);
          out.options.push({ name: `-${ch}`, index: i, ...paired });
        }
        break;
      }
      continue;
    }
    out.operands.push({ word: w, index: i });
    if (table.stopAtOperand) {
      for (let k = i + 1; k < words.length; k++) out.operands.push({ word: words[k] as Word, index: k });
      break;
    }
  }
  return out;
}

/** Whether an option (not switched off) is one of these short letters or long names, by its letter or its long name. */
function named(o: ParsedOption, short: string, long: readonly string[]): boolean {
  if (o.negated) return false;
  if (o.name.length === 2 && short.includes(o.name[1] as string)) return true;
  const full = o.long ?? o.name;
  return full.startsWith("--") && long.includes(full.slice(2));
}

/** The first option named by one of these short letters or (canonical) long names. */
export function findOption(parsed: ParsedArgs, short: string, long: readonly string[]): ParsedOption | undefined {
  return parsed.options.find((o) => named(o, short, long));
}

/** The values of the options named by these short letters or long names. */
export function optionValues(parsed: ParsedArgs, short: string, long: readonly string[]): string[] {
  return parsed.options
    .filter((o) => named(o, short, long))
    .map((o) => o.value?.text)
    .filter((v): v is string => v !== undefined);
}
