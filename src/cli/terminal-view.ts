import { isAbsolute, relative } from "node:path";
import type { ToolResultBlock } from "../tool/types.js";

/**
 * How the interactive terminal shows a run to a person: a tool call as one line
 * (`Bash(npm test)`), its result as a short line (a coloured diff for edits), errors without
 * the model-facing wrapper tags, and a spinner while the model or a tool works. Pure but for
 * the spinner, which writes to the stream it is given.
 */
export interface TerminalStyle {
  /** ANSI colours: on a terminal, unless NO_COLOR is set (https://no-color.org). */
  color: boolean;
}

export function terminalStyle(isTTY: boolean, env: NodeJS.ProcessEnv = process.env): TerminalStyle {
  return { color: isTTY && (env.NO_COLOR ?? "") === "" && env.TERM !== "dumb" };
}

const CODES = { bold: 1, dim: 2, red: 31, green: 32, cyan: 36 } as const;
type Paint = keyof typeof CODES;

export function paint(style: TerminalStyle, what: Paint, text: string): string {
  return style.color ? `\x1b[${CODES[what]}m${text}\x1b[0m` : text;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function firstLine(text: string): { line: string; more: number } {
  const lines = text.replace(/\n+$/, "").split("\n");
  const index = lines.findIndex((l) => l.trim() !== "");
  if (index < 0) return { line: "", more: 0 };
  return { line: lines[index]!, more: lines.length - index - 1 };
}

const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/** A path as the person thinks of it: relative when it is under the working directory. */
function shownPath(path: string, cwd: string): string {
  if (!isAbsolute(path)) return path;
  const rel = relative(cwd, path);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? rel : path;
}

/** `Name(what it acts on)`: the command, the file, the pattern, the URL… never the JSON input. */
export function callLine(name: string, input: unknown, cwd: string): string {
  const i = (typeof input === "object" && input !== null ? input : {}) as Record<string, unknown>;
  const path = str(i.file_path) ?? str(i.notebook_path);
  let what: string | undefined;
  if (name === "Bash") what = str(i.command)?.split("\n")[0];
  else if (path !== undefined) what = shownPath(path, cwd);
  else if (name === "Glob" || name === "Grep") {
    const where = str(i.path);
    what = `${JSON.stringify(str(i.pattern) ?? "")}${where !== undefined ? ` in ${shownPath(where, cwd)}` : ""}`;
  } else what = str(i.url) ?? str(i.query) ?? str(i.description) ?? str(i.prompt);
  if (what === undefined) {
    if (Array.isArray(i.todos)) what = `${i.todos.length} items`;
    else {
      const first = Object.values(i).find((v) => typeof v === "string" && v !== "");
      what = typeof first === "string" ? first.split("\n")[0] : Object.keys(i).length > 0 ? JSON.stringify(i) : "";
    }
  }
  return `${name}(${clip(what ?? "", 100)})`;
}

/** The result text without the `<tool_use_error>` wrapper the model sees. */
export function unwrapError(text: string): string {
  return text.replace(/<\/?tool_use_error>/g, "").trim();
}

function resultText(result: ToolResultBlock): string {
  if (typeof result.content === "string") return result.content;
  return result.content.map((b) => (b.type === "text" ? b.text : b.type === "image" ? "[image]" : `[${b.type}]`)).join("\n");
}

interface Hunk {
  lines: string[];
}

const MAX_DIFF_LINES = 40;

/** A structured patch as coloured lines: removed red, added green, context dim. */
function diffLines(hunks: Hunk[], style: TerminalStyle): string[] {
  const out: string[] = [];
  let total = 0;
  for (const hunk of hunks) total += hunk.lines.length;
  for (const hunk of hunks) {
    for (const line of hunk.lines) {
      if (out.length >= MAX_DIFF_LINES) {
        out.push(paint(style, "dim", `… ${total - MAX_DIFF_LINES} more lines`));
        return out;
      }
      const text = clip(line, 200);
      out.push(line.startsWith("+") ? paint(style, "green", text) : line.startsWith("-") ? paint(style, "red", text) : paint(style, "dim", text));
    }
  }
  return out;
}

function plural(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? "" : "s"}`;
}

/**
 * The short result under a call: its first line (and how many more), a count, or for a file
 * change the lines added and removed followed by the diff. The first entry is the summary line.
 */
export function resultLines(toolName: string, result: ToolResultBlock, data: unknown, style: TerminalStyle): string[] {
  const text = resultText(result);
  if (result.is_error) {
    const { line, more } = firstLine(unwrapError(text));
    return [paint(style, "red", `${clip(line, 160)}${more > 0 ? ` (+${more} lines)` : ""}`)];
  }
  const d = (typeof data === "object" && data !== null ? data : {}) as Record<string, unknown>;
  if (Array.isArray(d.structuredPatch)) {
    const hunks = d.structuredPatch as Hunk[];
    if (d.type === "create") return [`Wrote ${plural(str(d.content)?.split("\n").length ?? 0, "line")}`];
    let added = 0;
    let removed = 0;
    for (const h of hunks) {
      added += h.lines.filter((l) => l.startsWith("+")).length;
      removed += h.lines.filter((l) => l.startsWith("-")).length;
    }
    return [`Added ${plural(added, "line")}, removed ${plural(removed, "line")}`, ...diffLines(hunks, style)];
  }
  if (toolName === "Read" && typeof d.file === "object" && d.file !== null) {
    const lines = (d.file as Record<string, unknown>).numLines;
    if (typeof lines === "number") return [`Read ${plural(lines, "line")}`];
  }
  if (typeof d.numFiles === "number" && Array.isArray(d.filenames)) return [`Found ${plural(d.numFiles, "file")}`];
  if (toolName === "Bash" && typeof d.stdout === "string") {
    if (typeof d.backgroundTaskId === "string") return [`Running in the background (${d.backgroundTaskId})`];
    const output = `${d.stdout}${typeof d.stderr === "string" && d.stderr !== "" ? `\n${d.stderr}` : ""}`;
    const { line, more } = firstLine(output);
    return [line === "" ? paint(style, "dim", "(no output)") : `${clip(line, 160)}${more > 0 ? paint(style, "dim", ` … +${more} lines`) : ""}`];
  }
  const { line, more } = firstLine(text);
  return [line === "" ? paint(style, "dim", "(no output)") : `${clip(line, 160)}${more > 0 ? paint(style, "dim", ` … +${more} lines`) : ""}`];
}

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** A one-line spinner with the seconds elapsed, redrawn in place; `stop()` erases it. A no-op when disabled. */
export class Spinner {
  private timer: NodeJS.Timeout | undefined;
  private startedAt = 0;
  private frame = 0;

  constructor(
    private readonly stream: { write(text: string): unknown },
    private readonly enabled: boolean,
    private readonly style: TerminalStyle,
  ) {}

  start(label = "working"): void {
    if (!this.enabled || this.timer) return;
    this.startedAt = Date.now();
    const draw = (): void => {
      const seconds = Math.floor((Date.now() - this.startedAt) / 1000);
      this.stream.write(`\r${paint(this.style, "cyan", FRAMES[this.frame++ % FRAMES.length]!)} ${label}… ${paint(this.style, "dim", `(${seconds}s · Ctrl-C to interrupt)`)}\x1b[K`);
    };
    draw();
    this.timer = setInterval(draw, 100);
    this.timer.unref();
  }

  stop(): void {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.stream.write("\r\x1b[K");
  }
}
