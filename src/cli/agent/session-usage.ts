import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Usage } from "../../providers/model.js";

/**
 * The session's tokens per model, kept beside its conversation (`model-usage.json`) so a resumed
 * session's `modelUsage` and `total_cost_usd` go on from where it stopped, as the reference's do.
 * Accounting, not authority: a file that does not parse, or rows that are not token counts, are
 * ignored (the totals then start from zero), and nothing in it decides a permission or a budget.
 */
const FILE = "model-usage.json";
const KEYS = ["input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"] as const;

export async function readSessionUsage(sessionDir: string): Promise<Record<string, Usage>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(join(sessionDir, FILE), "utf8"));
  } catch {
    return {};
  }
  const models = (parsed as { models?: unknown } | null)?.models;
  if (typeof models !== "object" || models === null) return {};
  const out: Record<string, Usage> = {};
  for (const [model, row] of Object.entries(models as Record<string, unknown>)) {
    if (typeof row !== "object" || row === null) continue;
    const values = KEYS.map((k) => (row as Record<string, unknown>)[k]);
    if (values.every((v) => typeof v === "number" && Number.isSafeInteger(v) && v >= 0)) {
      out[model] = { input_tokens: values[0] as number, output_tokens: values[1] as number, cache_creation_input_tokens: values[2] as number, cache_read_input_tokens: values[3] as number };
    }
  }
  return out;
}

export async function writeSessionUsage(sessionDir: string, totals: Record<string, Usage>): Promise<void> {
  const models: Record<string, Record<string, number>> = {};
  for (const [model, usage] of Object.entries(totals)) models[model] = Object.fromEntries(KEYS.map((k) => [k, usage[k]]));
  await writeFile(join(sessionDir, FILE), `${JSON.stringify({ version: 1, models })}\n`, { mode: 0o600 });
}
