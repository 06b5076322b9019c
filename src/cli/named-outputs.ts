// Bash writes each command's full output to <session>/shell-output/<id>.output. The files a
// result names (an output too long to show inline, a background command's output) are kept for
// later reading; every other one is removed when the exec or agent run ends, so that outputs
// nobody can find again (a command's 2 GB the model saw the end of) do not stay on disk.
import { readdir, readFile, unlink } from "node:fs/promises";
import { join } from "node:path";

export const SHELL_OUTPUT_DIR = "shell-output";

/**
 * Whether a result line names a file in the session folder that may be read later (an output,
 * a saved result, a page, a plan). The folder where the shell reports its directory does not
 * count: a command's error message can name its report file, which is the shell's, not a result's.
 */
export function namesSessionFile(line: string, sessionDir: string): boolean {
  const prefix = `${JSON.stringify(sessionDir).slice(1, -1)}/`;
  for (let at = line.indexOf(prefix); at !== -1; at = line.indexOf(prefix, at + prefix.length)) {
    if (!line.startsWith("shell-cwd/", at + prefix.length)) return true;
  }
  return false;
}

/** The output files (their names in shell-output/) that a result line names. */
export function namedOutputs(line: string, sessionDir: string, into: Set<string>): void {
  // Paths appear JSON-escaped in the line; the session folder's name is escaped the same way.
  const prefix = `${JSON.stringify(join(sessionDir, SHELL_OUTPUT_DIR)).slice(1, -1)}/`;
  for (let at = line.indexOf(prefix); at !== -1; at = line.indexOf(prefix, at + prefix.length)) {
    // A name ends before a sentence's full stop ("…/b1.output. You will be notified").
    const name = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*/.exec(line.slice(at + prefix.length, at + prefix.length + 256))?.[0];
    if (name !== undefined) into.add(name);
  }
}

/**
 * The output files an agent run's conversations name: the main one and its sub-agents'
 * (`<session>/agents/*.jsonl`), one JSON message per line as the model saw it.
 */
export async function namedInConversations(conversation: string, sessionDir: string, into: Set<string>): Promise<void> {
  const agentsDir = join(sessionDir, "agents");
  const subagents = (await readdir(agentsDir).catch(() => [])).filter((n) => n.endsWith(".jsonl")).map((n) => join(agentsDir, n));
  for (const file of [conversation, ...subagents]) {
    const text = await readFile(file, "utf8").catch(() => "");
    for (const line of text.split("\n")) namedOutputs(line, sessionDir, into);
  }
}

/** Removes the output files of `sessionDir` that no result named; resolves to how many it removed. */
export async function removeUnnamedOutputs(sessionDir: string, named: ReadonlySet<string>): Promise<number> {
  const dir = join(sessionDir, SHELL_OUTPUT_DIR);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    if (!name.endsWith(".output") || named.has(name)) continue;
    try {
      await unlink(join(dir, name));
      removed++;
    } catch {
      // gone already
    }
  }
  return removed;
}

/** The output files in `sessionDir` now. */
export async function existingOutputs(sessionDir: string): Promise<string[]> {
  return readdir(join(sessionDir, SHELL_OUTPUT_DIR)).catch(() => []);
}
