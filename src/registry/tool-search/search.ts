import type { Tool } from "../../tool/types.js";

/** What a keyword search compares against, computed once per tool. */
export interface SearchEntry {
  name: string;
  nameLower: string;
  /** Name split into words: `mcp__github__create_issue` → github, create, issue; `WebFetch` → web, fetch. */
  parts: string[];
  hint: string[];
  description: string;
}

function splitWords(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0);
}

export function searchEntry(tool: Tool, description: string): SearchEntry {
  const bare = tool.name.startsWith("mcp__") ? tool.name.slice(5) : tool.name;
  return {
    name: tool.name,
    nameLower: tool.name.toLowerCase(),
    parts: splitWords(bare),
    hint: tool.searchHint ? splitWords(tool.searchHint) : [],
    description: description.toLowerCase(),
  };
}

export interface ParsedQuery {
  kind: "select" | "keywords";
  names: string[];
  required: string[];
  optional: string[];
}

export function parseQuery(query: string): ParsedQuery {
  const q = query.trim();
  if (/^select:/i.test(q)) {
    const names = q.slice(7).split(",").map((n) => n.trim()).filter((n) => n.length > 0);
    return { kind: "select", names, required: [], optional: [] };
  }
  const required: string[] = [];
  const optional: string[] = [];
  for (const word of q.split(/\s+/)) {
    if (word === "") continue;
    if (word.startsWith("+") && word.length > 1) required.push(...splitWords(word.slice(1)));
    else optional.push(...splitWords(word));
  }
  return { kind: "keywords", names: [], required, optional };
}

function wordIn(text: string, term: string): boolean {
  let from = 0;
  for (;;) {
    const at = text.indexOf(term, from);
    if (at < 0) return false;
    const before = at === 0 ? "" : text[at - 1]!;
    if (!/[a-z0-9]/.test(before)) return true;
    from = at + 1;
  }
}

function nameScore(entry: SearchEntry, term: string): number {
  let best = 0;
  for (const part of entry.parts) {
    if (part === term) return 10;
    if (part.startsWith(term)) best = Math.max(best, 6);
    else if (part.includes(term)) best = Math.max(best, 4);
  }
  if (best === 0 && entry.nameLower.includes(term)) best = 3;
  return best;
}

function termScore(entry: SearchEntry, term: string): number {
  let score = nameScore(entry, term);
  if (entry.hint.some((w) => w === term || w.startsWith(term))) score += 4;
  if (entry.description.includes(term) && wordIn(entry.description, term)) score += 2;
  return score;
}

/**
 * Ranks entries for a keyword query: each term scores on name words (exact 10, prefix 6,
 * inside 4), search hint (4) and description words (2); `+term`s must be in the name.
 * Best first, ties by name; only entries that score.
 */
export function rankEntries(entries: readonly SearchEntry[], query: ParsedQuery, max: number): string[] {
  const scored: Array<{ name: string; score: number }> = [];
  for (const entry of entries) {
    let score = 0;
    let ok = true;
    for (const term of query.required) {
      const s = nameScore(entry, term);
      if (s === 0) {
        ok = false;
        break;
      }
      score += termScore(entry, term);
    }
    if (!ok) continue;
    for (const term of query.optional) score += termScore(entry, term);
    if (score > 0) scored.push({ name: entry.name, score });
  }
  scored.sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return scored.slice(0, Math.max(0, max)).map((s) => s.name);
}

/** `select:` names that are deferred tools, in the order asked (exact name first, then any case). */
export function selectNames(names: readonly string[], deferred: readonly Tool[]): string[] {
  const out: string[] = [];
  for (const n of names) {
    const lower = n.toLowerCase();
    const found = deferred.find((t) => t.name === n) ?? deferred.find((t) => t.name.toLowerCase() === lower);
    if (found !== undefined && !out.includes(found.name)) out.push(found.name);
  }
  return out;
}
