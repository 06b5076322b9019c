// Front matter of Markdown files (skills' SKILL.md, agents' files): a YAML mapping between `---`
// lines, read by a YAML parser (the `yaml` package, loaded on first use: folded `>-` and literal
// `|` blocks, quoting, lists and comments as YAML means them).

export class FrontMatterError extends Error {}

/** The YAML between the opening and closing `---` lines, and what follows; undefined without them. */
export function splitFrontMatter(text: string): { yaml: string; body: string } | undefined {
  const match = /^\uFEFF?---[ \t]*\r?\n(?:([\s\S]*?)\r?\n)?---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!match) return undefined;
  return { yaml: match[1] ?? "", body: text.slice(match[0].length) };
}

let yamlModule: Promise<typeof import("yaml")> | undefined;

/**
 * The front matter's fields, as YAML reads them (an empty block: no fields), and the body.
 * Undefined when the text has no front matter. A block that is not YAML throws
 * FrontMatterError naming the line — except for the commonest slip in hand-written files, a
 * plain value holding `: ` or ` #` (`description: Use when: the tests fail`): those values are
 * read as the text they are (files written for the line-based reader armature had before keep
 * working).
 */
export async function parseFrontMatter(text: string): Promise<{ fields: Record<string, unknown>; body: string } | undefined> {
  const split = splitFrontMatter(text);
  if (!split) return undefined;
  const { parse } = await (yamlModule ??= import("yaml"));
  let value: unknown;
  try {
    value = parse(split.yaml);
  } catch (first) {
    const quoted = quotePlainValues(split.yaml);
    try {
      if (quoted === split.yaml) throw first;
      value = parse(quoted);
    } catch {
      throw new FrontMatterError(`the front matter is not valid YAML: ${oneLine((first as Error).message)}`);
    }
  }
  if (value === null || value === undefined) return { fields: {}, body: split.body };
  if (typeof value !== "object" || Array.isArray(value)) throw new FrontMatterError("the front matter must be a YAML mapping (key: value lines)");
  return { fields: value as Record<string, unknown>, body: split.body };
}

/** Top-level `key: value` lines whose plain value YAML would misread, with the value quoted. */
function quotePlainValues(yaml: string): string {
  return yaml
    .split(/\r?\n/)
    .map((line) => {
      const m = /^([A-Za-z0-9_-]+):[ \t]+(.*?)[ \t]*$/.exec(line);
      if (!m) return line;
      const value = m[2]!;
      if (/^["'[{|>&*!%@`#]/.test(value) || !/: | #/.test(value)) return line;
      return `${m[1]}: ${JSON.stringify(value)}`;
    })
    .join("\n");
}

function oneLine(message: string): string {
  return message.split("\n")[0]!.trim();
}

/** A field as text: a string as is, a number or boolean as written; anything else undefined. */
export function fieldText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}

/** A field as a list of texts: a YAML sequence of scalars; a single text is left to the caller (undefined here). */
export function fieldList(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.map(fieldText).filter((v): v is string => v !== undefined);
}
