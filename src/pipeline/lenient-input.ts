import type { z } from "zod";

/**
 * The input with the reference agent's lenient readings applied where the schema refused a
 * string: `"2"` for a number, `"true"`/`"false"` for a boolean. Models trained on that agent send
 * them and expect them to work. Pure; undefined when nothing could be read differently.
 */
export function lenientInput(error: z.ZodError, raw: unknown): unknown {
  let copy: unknown;
  for (const issue of error.issues) {
    if (issue.code !== "invalid_type" || issue.path.length === 0) continue;
    const expected = issue.expected as string;
    if (expected !== "number" && expected !== "int" && expected !== "boolean") continue;
    copy ??= structuredClone(raw);
    const parent = valueAt(copy, issue.path.slice(0, -1));
    const key = issue.path[issue.path.length - 1]!;
    if (parent === null || typeof parent !== "object") continue;
    const record = parent as Record<PropertyKey, unknown>;
    const value = record[key];
    if (typeof value !== "string") continue;
    const read = expected === "boolean" ? readBoolean(value) : readNumber(value);
    if (read !== undefined) record[key] = read;
  }
  return copy === undefined || JSON.stringify(copy) === JSON.stringify(raw) ? undefined : copy;
}

function readNumber(text: string): number | undefined {
  const trimmed = text.trim();
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(trimmed)) return undefined;
  const n = Number(trimmed);
  return Number.isFinite(n) ? n : undefined;
}

function readBoolean(text: string): boolean | undefined {
  const t = text.trim().toLowerCase();
  return t === "true" ? true : t === "false" ? false : undefined;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let cur = input;
  for (const key of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return cur;
}
