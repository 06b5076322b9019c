// What the walker collects: simple commands with their words, environment and redirections.
import type { Node } from "./parser.js";
import type { Word } from "./words.js";

export interface Redirect {
  /** The operator as written: `>`, `>>`, `>|`, `&>`, `&>>`, `>&`, `<`, `<&`, `<<<`, `<<`… */
  op: string;
  /** The file descriptor written before the operator, if any. */
  fd?: string;
  /** The target word; undefined for here-documents and here-strings. */
  target?: Word;
  /** What a here-string or here-document feeds the command (undefined when not static). */
  content?: string;
}

export interface SimpleCommand {
  words: Word[];
  env: Array<{ name: string; value: Word }>;
  redirects: Redirect[];
  nested: boolean;
  /** For a wrapper command: the command it runs, when the wrapper is transparent (timeout, nice…). */
  transparentInner?: SimpleCommand;
  /** Reads a pipe on standard input (`a | cmd`): `rg pattern` then searches it, not the folder. */
  pipedInput?: boolean;
  /** For the command `xargs` runs: the operands xargs appends, as one word not known in advance. */
  xargsInput?: Word;
  /** The source text of the pipeline stage that feeds this one through `|` (`git ls-files` in `git ls-files | xargs wc -l`). */
  pipedFrom?: string;
  /** What this command runs itself (wrappers, `find -exec`, `xargs`: their inner argv; `bash -c`, `eval`, a here-document fed to a shell: scripts). */
  runs?: { commands: string[][]; scripts: string[] };
  /** Set for commands that are not simple commands (`export`, `declare`, `local`, `unset`). */
  declaration?: boolean;
}

export interface WalkState {
  commands: SimpleCommand[];
  /** Reasons the command is not fully modelled (complete: false and not read-only). */
  incomplete: Set<string>;
  /** Reasons the command is modelled but not read-only. */
  notReadOnly: Set<string>;
  /** ERROR and MISSING nodes seen so far. */
  syntaxErrors: number;
  /** Characters of shell text parsed so far (the command and the strings it runs). */
  parsedChars: number;
  /** Paths that `[[ -f x ]]`-style tests look at (the test is no simple command of its own). */
  testedPaths: string[];
}

export function newWalkState(): WalkState {
  return { commands: [], incomplete: new Set(), notReadOnly: new Set(), syntaxErrors: 0, parsedChars: 0, testedPaths: [] };
}

export function literalWord(text: string): Word {
  return { text, isStatic: true, glob: false, brace: false, ifs: false, unsafeExpansion: false, split: false, raw: text };
}

/** The text of the stage before this command's in its pipeline, when a plain `|` joins them. */
export function pipedFromText(node: Node): string | undefined {
  let stage = node;
  if (stage.parent?.type === "redirected_statement" && stage.parent.childForFieldName("body") === stage) stage = stage.parent;
  const pipeline = stage.parent;
  if (pipeline?.type !== "pipeline") return undefined;
  const i = pipeline.children.indexOf(stage);
  const op = pipeline.children[i - 1];
  const before = pipeline.children[i - 2];
  return op?.type === "|" && before !== undefined ? before.text : undefined;
}

/** True when the command node is fed by a pipe: it is not the first stage of a pipeline. */
export function pipedInto(node: Node): boolean {
  let stage = node;
  if (stage.parent?.type === "redirected_statement" && stage.parent.childForFieldName("body") === stage) stage = stage.parent;
  const pipeline = stage.parent;
  return pipeline?.type === "pipeline" && pipeline.child(0) !== stage;
}
