// The bash grammar, loaded on first use: `ensureBashGrammar()` loads the tree-sitter runtime and
// the grammar (WASM) once; after it has resolved, every parse is synchronous (`isReadOnly(input)`
// is a sync method). Nothing here runs at import, so a process that never analyses a command
// (a Read-only `exec`, a library user without Bash) never pays for the grammar.
// Each parse is copied into plain JS objects in one cursor walk and the WASM tree is freed:
// every property read on a web-tree-sitter Node crosses into WASM, which is the dominant cost.
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import v8 from "node:v8";
import type { Language, Parser, Tree, TreeCursor } from "web-tree-sitter";
import { fastParseBash } from "./fast-parse.js";
import { SyntaxNode, type ParsedScript } from "./syntax-node.js";

export { descendantForIndex, SyntaxNode, type Node, type ParsedScript } from "./syntax-node.js";

const require = createRequire(import.meta.url);

/**
 * The cursor functions of web-tree-sitter's WASM binding. Emscripten installs its exports on the
 * options object given to `Parser.init`; each `_wasm` function reads the cursor from the
 * binding's transfer buffer (and the `goto` ones write it back), so a walk that calls them
 * directly keeps the cursor there instead of copying it in and out on every step as the
 * TreeCursor methods do. Absent (another importer initialised the runtime first, or another
 * binding version) or failing its self-check below, the public API is used instead.
 */
interface CursorExports {
  _ts_tree_cursor_goto_first_child_wasm(tree: number): number;
  _ts_tree_cursor_goto_next_sibling_wasm(tree: number): number;
  _ts_tree_cursor_goto_parent_wasm(tree: number): number;
  _ts_tree_cursor_current_node_type_id_wasm(tree: number): number;
  _ts_tree_cursor_current_field_id_wasm(tree: number): number;
  _ts_tree_cursor_current_node_is_missing_wasm(tree: number): number;
  _ts_tree_cursor_start_index_wasm(tree: number): number;
  _ts_tree_cursor_end_index_wasm(tree: number): number;
  _ts_tree_cursor_delete_wasm(tree: number): void;
}
const CURSOR_EXPORTS: Array<keyof CursorExports> = [
  "_ts_tree_cursor_goto_first_child_wasm", "_ts_tree_cursor_goto_next_sibling_wasm",
  "_ts_tree_cursor_goto_parent_wasm", "_ts_tree_cursor_current_node_type_id_wasm",
  "_ts_tree_cursor_current_field_id_wasm", "_ts_tree_cursor_current_node_is_missing_wasm",
  "_ts_tree_cursor_start_index_wasm", "_ts_tree_cursor_end_index_wasm", "_ts_tree_cursor_delete_wasm",
];

/** The loaded grammar and what is read from it once (no web-tree-sitter call during a copy). */
interface Grammar {
  parser: Parser;
  types: readonly string[];
  fields: readonly (string | null)[];
  /** By type id: whether the node type is named. */
  named: boolean[];
  /** By type id: whether the analysis reads the field names of this type's children. */
  readsFields: boolean[];
  direct: CursorExports | undefined;
}

const ERROR_TYPE_ID = 65535;
/** Parents whose children's field names the analysis reads; other fields are not fetched. */
const FIELD_PARENTS = new Set([
  "command", "redirected_statement", "file_redirect", "expansion", "variable_assignment",
  "subscript", "binary_expression", "function_definition",
]);

let grammar: Grammar | undefined;
let loading: Promise<void> | undefined;
/** How long loading the grammar took, in ms (0 until it is loaded; reported by the benches). */
export let parserInitMs = 0;

/**
 * Loads the bash grammar once (concurrent callers share the load). Analysis functions throw
 * until it has resolved; the Bash tool's `load()` and the pipeline await it for you.
 */
export function ensureBashGrammar(): Promise<void> {
  if (grammar) return Promise.resolve();
  loading ??= loadGrammar().catch((err: unknown) => {
    loading = undefined;
    throw err;
  });
  return loading;
}

/** Whether `ensureBashGrammar()` has completed (analysis is then synchronous). */
export function bashGrammarLoaded(): boolean {
  return grammar !== undefined;
}

function loaded(): Grammar {
  if (!grammar) throw new Error("the Bash grammar is not loaded yet: await ensureBashGrammar() (or the Bash tool's load()) before analysing a command");
  return grammar;
}

/**
 * Whether the tree-sitter runtime and the grammar may be compiled by V8's baseline compiler
 * (Liftoff) only. Left to tier up, the first parses make V8 recompile their hot functions (the
 * grammar's lexer is one huge function) with its optimising compiler, and on a 2-core machine
 * timers then stall for 0.6–3 s; both modules must be Liftoff-only for the stall to go (measured).
 * Liftoff code parses command-sized input about as fast; long scripts parse some 1.3× slower.
 * Also measured (issue 9) and not kept: the runtime left to tier up with the grammar Liftoff-only
 * (no stall seen, but the first long script parsed 3–5× slower while the hot functions were
 * recompiled); both compiled optimised up front (`--no-liftoff`: a 1.7 s stall at the first parse).
 * The flag is set only while these two modules compile and reset right after (V8 keeps a
 * module's tiering as it was compiled), and never when the process was started with WebAssembly
 * tiering flags of its own or with ARMATURE_BASH_WASM_TIERUP=1 (a long-lived process that
 * analyses long scripts may prefer optimised code).
 */
function mayCompileLiftoffOnly(): boolean {
  if (process.env.ARMATURE_BASH_WASM_TIERUP === "1") return false;
  const given = [...process.execArgv, process.env.NODE_OPTIONS ?? ""].join(" ");
  return !/liftoff|wasm-tier|wasm-dynamic-tiering|wasm-lazy/.test(given);
}

/**
 * The Bash grammar's .wasm: the copy the build puts in dist/grammar/ (the package ships it alone,
 * not the 20 MB tree-sitter-bash package it comes from), else, running from the sources, that
 * package's own (a devDependency).
 */
function bashGrammarPath(): string {
  return shippedOr(new URL("../grammar/tree-sitter-bash.wasm", import.meta.url), "tree-sitter-bash/tree-sitter-bash.wasm");
}

/** A .wasm the build copied to dist/grammar/, else (running from the sources) the package's own. */
function shippedOr(url: URL, packagePath: string): string {
  const shipped = fileURLToPath(url);
  return existsSync(shipped) ? shipped : require.resolve(packagePath);
}

async function loadGrammar(): Promise<void> {
  const started = performance.now();
  const { Language: LanguageClass, Parser: ParserClass } = await import("web-tree-sitter");
  // The runtime's own .wasm: web-tree-sitter's module is bundled, its .wasm shipped beside the grammar.
  const runtimeWasm = shippedOr(new URL("../grammar/tree-sitter.wasm", import.meta.url), "web-tree-sitter/tree-sitter.wasm");
  const moduleOptions: Record<string, unknown> = { locateFile: () => runtimeWasm };
  const bytes = readFileSync(bashGrammarPath());
  let language: Language;
  const liftoffOnly = mayCompileLiftoffOnly();
  if (liftoffOnly) v8.setFlagsFromString("--liftoff-only");
  try {
    await ParserClass.init(moduleOptions);
    language = await LanguageClass.load(bytes);
  } finally {
    if (liftoffOnly) v8.setFlagsFromString("--no-liftoff-only");
  }
  const parser = new ParserClass();
  parser.setLanguage(language);
  const named: boolean[] = [];
  const readsFields: boolean[] = [];
  for (let id = 0; id < language.nodeTypeCount; id++) {
    named[id] = language.nodeTypeIsNamed(id);
    readsFields[id] = FIELD_PARENTS.has(language.types[id] ?? "ERROR");
  }
  const complete = CURSOR_EXPORTS.every((name) => typeof moduleOptions[name] === "function");
  const candidate: Grammar = { parser, types: language.types, fields: language.fields, named, readsFields, direct: undefined };
  candidate.direct = directCursorWorks(candidate, complete ? (moduleOptions as unknown as CursorExports) : undefined);
  grammar = candidate;
  parserInitMs = performance.now() - started;
}

/** Parses bash source into a plain syntax tree. Throws only if the WASM runtime itself fails. */
export function parseBash(source: string): SyntaxNode {
  return parseBashScript(source).root;
}

/** `ARMATURE_BASH_FAST_PARSE=0`: every source goes to tree-sitter (read once, at load). */
const FAST_PARSE = process.env.ARMATURE_BASH_FAST_PARSE !== "0";
const parses = { fast: 0, treeSitter: 0 };

/**
 * The tree of `source`: from the parser of the everyday subset when it knows every construct
 * the source uses (fast-parse.ts, the same tree three to six times faster), else from tree-sitter.
 */
export function parseBashScript(source: string): ParsedScript {
  const g = loaded();
  const fast = FAST_PARSE ? fastParseBash(source) : undefined;
  if (fast) {
    parses.fast++;
    return fast;
  }
  parses.treeSitter++;
  return parseWith(g, source, g.direct);
}

/** How many sources `parseBashScript` has parsed in this process, by which parser (the tests and benches read it). */
export function bashParseCounts(): { readonly fast: number; readonly treeSitter: number } {
  return { ...parses };
}

/** The tree of `source` from tree-sitter alone (the tests compare it with the fast parser's). */
export function parseBashScriptTreeSitter(source: string): ParsedScript {
  const g = loaded();
  return parseWith(g, source, g.direct);
}

/** Parses and frees the tree without reading it: the floor under any analysis (for the benches). */
export function parseBashTreeOnly(source: string): void {
  parseTree(loaded(), source).tree.delete();
}

/** The same copy through web-tree-sitter's public TreeCursor methods (the tests compare both). */
export function parseBashScriptPublic(source: string): ParsedScript {
  return parseWith(loaded(), source, undefined);
}

/** The tree of `source` parsed as it is, without the newline parses add after it (the tests compare both). */
export function parseBashScriptAsWritten(source: string): ParsedScript {
  const g = loaded();
  return parseWith(g, source, g.direct, true);
}

/** Whether parses use the direct cursor calls (false: the public API). */
export function usesDirectCursor(): boolean {
  return loaded().direct !== undefined;
}

/** The cursor operations one copy needs: the public methods or the binding's functions. */
interface CursorOps {
  firstChild(): boolean;
  nextSibling(): boolean;
  parent(): boolean;
  typeId(): number;
  fieldId(): number;
  isMissing(): boolean;
  startIndex(): number;
  endIndex(): number;
  delete(): void;
}

/**
 * The tree of `source`, parsed with a newline after it when that gives the same tree. The bash
 * grammar forks on a pipeline of three or more commands (`a | b | c`) and keeps the wrong branch
 * alive until the next newline or `;`: at the end of the input, after the right branch has been
 * accepted, the runtime then starts error recovery on the wrong one, which costs some 120 µs per
 * parse (five times a whole one-liner's parse). With a final newline the wrong branch fails while
 * the right one still runs and is dropped at no cost. The newline changes nothing when the tree
 * of `source + "\n"` has no error and the source has no backslash and no here-document (measured
 * over the security and everyday corpora and their prefixes; parser.test.ts keeps checking): a
 * backslash (`ls \`, `ls \<newline> `, `x\ `) or a here-document ending at the end of the input
 * can read differently, so those are parsed as they are, as is any source whose tree with the
 * newline has an error. The newline's node, and the one character of range it adds, are left out
 * of the copy, so the walk sees exactly the tree of `source`.
 */
function parseTree(g: Grammar, source: string, asWritten = false): { tree: Tree; end: number } {
  const last = source.charCodeAt(source.length - 1);
  // Not after a newline (nothing to gain), nor with a backslash (a line continuation, an escaped
  // blank at the end), a here-document (its body may end at the end of the input) or no text.
  if (!asWritten && last !== 10 && !source.includes("\\") && !source.includes("<<") && /\S/.test(source)) {
    const tree = g.parser.parse(source + "\n");
    if (!tree) throw new Error("tree-sitter returned no tree");
    if (!tree.rootNode.hasError) return { tree, end: source.length };
    tree.delete();
  }
  const tree = g.parser.parse(source);
  if (!tree) throw new Error("tree-sitter returned no tree");
  return { tree, end: -1 };
}

function parseWith(g: Grammar, source: string, exports: CursorExports | undefined, asWritten = false): ParsedScript {
  const { tree, end } = parseTree(g, source, asWritten);
  try {
    const checkMissing = end < 0 && tree.rootNode.hasError;
    const cursor = tree.walk();
    return copyTree(g, exports ? new DirectCursor(exports, tree) : new PublicCursor(cursor), source, checkMissing, end);
  } finally {
    tree.delete();
  }
}

class PublicCursor implements CursorOps {
  constructor(private readonly cursor: TreeCursor) {}
  firstChild(): boolean {
    return this.cursor.gotoFirstChild();
  }
  nextSibling(): boolean {
    return this.cursor.gotoNextSibling();
  }
  parent(): boolean {
    return this.cursor.gotoParent();
  }
  typeId(): number {
    return this.cursor.nodeTypeId;
  }
  fieldId(): number {
    return this.cursor.currentFieldId;
  }
  isMissing(): boolean {
    return this.cursor.nodeIsMissing;
  }
  startIndex(): number {
    return this.cursor.startIndex;
  }
  endIndex(): number {
    return this.cursor.endIndex;
  }
  delete(): void {
    this.cursor.delete();
  }
}

/**
 * `tree.walk()` has just left the new cursor in the transfer buffer; from here on only these
 * calls touch the buffer, so it stays the cursor's one copy (and the JS TreeCursor object goes
 * stale: it is never used again, and the cursor is freed from the buffer).
 */
class DirectCursor implements CursorOps {
  private readonly t: number;
  constructor(
    private readonly x: CursorExports,
    tree: Tree,
  ) {
    this.t = (tree as unknown as { 0: number })[0];
  }
  firstChild(): boolean {
    return this.x._ts_tree_cursor_goto_first_child_wasm(this.t) === 1;
  }
  nextSibling(): boolean {
    return this.x._ts_tree_cursor_goto_next_sibling_wasm(this.t) === 1;
  }
  parent(): boolean {
    return this.x._ts_tree_cursor_goto_parent_wasm(this.t) === 1;
  }
  typeId(): number {
    return this.x._ts_tree_cursor_current_node_type_id_wasm(this.t);
  }
  fieldId(): number {
    return this.x._ts_tree_cursor_current_field_id_wasm(this.t);
  }
  isMissing(): boolean {
    return this.x._ts_tree_cursor_current_node_is_missing_wasm(this.t) === 1;
  }
  startIndex(): number {
    return this.x._ts_tree_cursor_start_index_wasm(this.t);
  }
  endIndex(): number {
    return this.x._ts_tree_cursor_end_index_wasm(this.t);
  }
  delete(): void {
    this.x._ts_tree_cursor_delete_wasm(this.t);
  }
}

/**
 * Copies the tree under the cursor into SyntaxNodes in one walk, then frees the cursor. With
 * `end` ≥ 0 (the source was parsed with a newline after it), nodes from `end` on are left out
 * and ranges end at `end` at most.
 */
function copyTree(g: Grammar, cursor: CursorOps, source: string, checkMissing: boolean, end = -1): ParsedScript {
  const { types, fields, named, readsFields } = g;
  let nextId = 0;
  const make = (typeId: number, parentTypeId: number): SyntaxNode => {
    const field = parentTypeId >= 0 && readsFields[parentTypeId] === true ? fields[cursor.fieldId()] : undefined;
    return new SyntaxNode(
      nextId++,
      types[typeId] ?? "ERROR",
      typeId === ERROR_TYPE_ID || named[typeId] === true,
      field ?? undefined,
      checkMissing && cursor.isMissing(),
      source,
    );
  };
  const rootTypeId = cursor.typeId();
  const root = make(rootTypeId, -1);
  // The open nodes (with their type ids), and the children read so far of all of them, in one
  // array: a node's children are copied out, at their final length, when it is left.
  const open: SyntaxNode[] = [root];
  const openTypes: number[] = [rootTypeId];
  const childrenFrom: number[] = [0];
  const pending: SyntaxNode[] = [];
  /** Nodes wholly after `end` (the added newline's). */
  const outside: SyntaxNode[] = [];
  let depth = 1;
  const attach = (): void => {
    const parent = open[open.length - 1] as SyntaxNode;
    const typeId = cursor.typeId();
    const node = make(typeId, openTypes[openTypes.length - 1] as number);
    node.parent = parent;
    pending.push(node);
    open.push(node);
    openTypes.push(typeId);
    childrenFrom.push(pending.length);
    if (open.length > depth) depth = open.length;
  };
  // Read when leaving a node. (A parent's range is not always its children's: here-document
  // bodies hold text that is no child node.)
  const close = (): void => {
    const node = open.pop() as SyntaxNode;
    openTypes.pop();
    const from = childrenFrom.pop() as number;
    if (pending.length > from) {
      node.children = pending.slice(from);
      pending.length = from;
    }
    node.startIndex = cursor.startIndex();
    node.endIndex = cursor.endIndex();
    if (end >= 0 && node.endIndex > end) {
      // Past the source: the added newline's own node is left out of its parent's children.
      if (node.startIndex >= end) outside.push(node);
      node.endIndex = end;
      if (outside.length > 0) node.children = node.children.filter((c) => !outside.includes(c));
    }
  };
  walk: for (;;) {
    if (cursor.firstChild()) {
      attach();
      continue;
    }
    for (;;) {
      close();
      if (cursor.nextSibling()) {
        attach();
        break;
      }
      if (!cursor.parent()) break walk;
    }
  }
  cursor.delete();
  return { root, depth };
}

function sameTree(a: SyntaxNode, b: SyntaxNode): boolean {
  if (a.type !== b.type || a.isNamed !== b.isNamed || a.field !== b.field || a.isMissing !== b.isMissing) return false;
  if (a.startIndex !== b.startIndex || a.endIndex !== b.endIndex || a.children.length !== b.children.length) return false;
  return a.children.every((c, i) => sameTree(c, b.children[i] as SyntaxNode));
}

/** Scripts the direct cursor must copy exactly as the public API does before it is trusted. */
const SELF_CHECK = [
  'for f in *.ts; do wc -l "$f" | awk \'{print $1}\' > /dev/null 2>&1; done && x=$(ls "${d:-.}")',
  "cat <<EOF | grep -v x\n$(date) `pwd`\nEOF\nif [[ -v a[1] ]]; then (( i++ )); fi; f() { :; }",
  "echo ( ; $(( 1 +",
];

function directCursorWorks(g: Grammar, exports: CursorExports | undefined): CursorExports | undefined {
  if (!exports) return undefined;
  try {
    for (const script of SELF_CHECK) {
      if (!sameTree(parseWith(g, script, exports).root, parseWith(g, script, undefined).root)) return undefined;
    }
    return exports;
  } catch {
    return undefined;
  }
}
