import type { PermissionRule, RuleBehavior } from "../tool/types.js";
import { bashMatcher, normaliseBashSpec, type BashMatcher } from "../shell/bash-rules.js";
import { ruleFormCovers, ruleFormOf, type CanonicalForm, type RuleForm } from "../shell/command-facts.js";

/** A Bash rule with content, its position in the rule list, and its compiled matcher. */
export interface IndexedBashRule {
  order: number;
  rule: PermissionRule;
  match: BashMatcher;
}

/**
 * Bash rules of one behavior by the literal first word of their pattern (`npm run test *` →
 * `npm`), so a subcommand is tested only against rules that can match it; patterns that start
 * with `*` (or glob their first word) are tried for every subcommand.
 */
export interface BashRuleIndex {
  byWord: Map<string, IndexedBashRule[]>;
  wild: IndexedBashRule[];
  all: IndexedBashRule[];
}

export interface RuleSection {
  /** Every rule of this behavior, in order. */
  rules: PermissionRule[];
  /** Rules that are not Bash rules with content (matched one by one). */
  others: Array<{ order: number; rule: PermissionRule }>;
  bash: BashRuleIndex;
}

export type RuleIndex = Record<RuleBehavior, RuleSection>;

const cache = new WeakMap<readonly PermissionRule[], RuleIndex>();

function section(): RuleSection {
  return { rules: [], others: [], bash: { byWord: new Map(), wild: [], all: [] } };
}

export function firstWordOfSpec(spec: string): string | null {
  const m = /^([^\s*]+)(?: |$)/.exec(normaliseBashSpec(spec));
  return m ? m[1]! : null;
}

/** The index of a rule list, built once per list (lists are immutable values). */
export function ruleIndex(rules: readonly PermissionRule[]): RuleIndex {
  let index = cache.get(rules);
  if (index) return index;
  index = { allow: section(), ask: section(), deny: section() };
  rules.forEach((rule, order) => {
    const s = index![rule.behavior];
    s.rules.push(rule);
    if (rule.toolName !== "Bash" || rule.ruleContent === undefined) {
      s.others.push({ order, rule });
      return;
    }
    const entry: IndexedBashRule = { order, rule, match: bashMatcher(rule.ruleContent) };
    s.bash.all.push(entry);
    const word = firstWordOfSpec(rule.ruleContent);
    if (word === null) s.bash.wild.push(entry);
    else {
      let list = s.bash.byWord.get(word);
      if (!list) s.bash.byWord.set(word, (list = []));
      list.push(entry);
    }
  });
  cache.set(rules, index);
  return index;
}

/** The first word of a subcommand text. */
export function firstWord(text: string): string {
  const space = text.indexOf(" ");
  return space === -1 ? text : text.slice(0, space);
}

/** The earliest rule (by order) among the candidates for these texts that matches one of them. */
export function firstBashMatch(index: BashRuleIndex, texts: readonly string[], accept?: (e: IndexedBashRule) => boolean): IndexedBashRule | undefined {
  let best: IndexedBashRule | undefined;
  const consider = (list: readonly IndexedBashRule[] | undefined): void => {
    if (!list) return;
    for (const e of list) {
      if (best && e.order >= best.order) break;
      if (accept && !accept(e)) continue;
      if (texts.some(e.match)) {
        best = e;
        break;
      }
    }
  };
  const seen: string[] = [];
  for (const t of texts) {
    const w = firstWord(t);
    if (seen.includes(w)) continue;
    seen.push(w);
    consider(index.byWord.get(w));
  }
  consider(index.wild);
  return best;
}

/** A Bash rule whose specifier reads as a command (see ruleFormOf), by its program. */
interface CanonicalRule {
  entry: IndexedBashRule;
  form: RuleForm;
}

const canonicalRules = new WeakMap<BashRuleIndex, Map<string, CanonicalRule[]>>();

/** The rules of an index read as commands, by program: built once per index, on first use (the analysis is loaded by then). */
function canonicalRulesOf(index: BashRuleIndex): Map<string, CanonicalRule[]> {
  let byProgram = canonicalRules.get(index);
  if (byProgram) return byProgram;
  byProgram = new Map();
  for (const entry of index.all) {
    const form = ruleFormOf(entry.rule.ruleContent ?? "");
    if (!form) continue;
    const program = form.form.head[0] as string;
    let list = byProgram.get(program);
    if (!list) byProgram.set(program, (list = []));
    list.push({ entry, form });
  }
  canonicalRules.set(index, byProgram);
  return byProgram;
}

/**
 * The earliest rule (by order, before `before` when given) that names what one of these
 * commands means: the rule's specifier and the command read by the same option tables and
 * compared part by part, so that a short option, an abbreviation, an attached value or another
 * order matches the spelling the rule uses. For deny and ask rules, besides their texts.
 */
export function firstCanonicalMatch(index: BashRuleIndex, forms: readonly (CanonicalForm | null)[], before = Infinity): IndexedBashRule | undefined {
  let best: IndexedBashRule | undefined;
  for (const form of forms) {
    if (!form) continue;
    for (const c of canonicalRulesOf(index).get(form.head[0] as string) ?? []) {
      if (c.entry.order >= Math.min(before, best?.order ?? Infinity)) break;
      if (ruleFormCovers(c.form, form)) {
        best = c.entry;
        break;
      }
    }
  }
  return best;
}
