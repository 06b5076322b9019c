// The bash grammar, loaded once. The top-level `await` makes every importer wait for the WASM
// modules, so that analysis afterwards is synchronous (`isReadOnly(input)` is a sync method).
// Each parse is copied into plain JS objects in one cursor walk and the WASM tree is freed:
// every property read on a web-tree-sitter Node crosses into WASM, which is the dominant cost.
import { createRequire } from "node:module";
import { Language, Parser, type Tree, type TreeCursor } from "web-tree-sitter";

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

async function loadBashParser(): Promise<{ parser: Parser; language: Language; exports: CursorExports | undefined }> {
  const runtimeWasm = require.resolve("web-tree-sitter/tree-sitter.wasm");
  const bashWasm = require.resolve("tree-sitter-bash/tree-sitter-bash.wasm");
  const moduleOptions: Record<string, unknown> = { locateFile: () => runtimeWasm };
  await Parser.init(moduleOptions);
  const language = await Language.load(bashWasm);
  const parser = new Parser();
  parser.setLanguage(language);
  const complete = CURSOR_EXPORTS.every((name) => typeof moduleOptions[name] === "function");
  return { parser, language, exports: complete ? (moduleOptions as unknown as CursorExports) : undefined };
}

const initStarted = performance.now();
const { parser, language, exports: loadedExports } = await loadBashParser();

const ERROR_TYPE_ID = 65535;
const namedById = new Map<number, boolean>();
function isNamedType(typeId: number): boolean {
  let named = namedById.get(typeId);
  if (named === undefined) {
    named = typeId === ERROR_TYPE_ID || language.nodeTypeIsNamed(typeId);
    namedById.set(typeId, named);
  }
  return named;
}

// Filled now, so that no web-tree-sitter call is made while a direct-cursor copy runs.
for (let id = 0; id < language.nodeTypeCount; id++) isNamedType(id);

/** Leaves share this array (nothing writes to a node's children after the copy). */
const NO_CHILDREN: SyntaxNode[] = [];

/** A syntax node copied out of the WASM tree (the subset of web-tree-sitter's Node we use). */
export class SyntaxNode {
  children: SyntaxNode[] = NO_CHILDREN;
  private named: SyntaxNode[] | undefined;
  parent: SyntaxNode | undefined;
  startIndex = 0;
  endIndex = 0;

  constructor(
    readonly id: number,
    readonly type: string,
    readonly isNamed: boolean,
    /** The field name this node has in its parent (`name`, `argument`, `redirect`…). */
    readonly field: string | undefined,
    readonly isMissing: boolean,
    private readonly source: string,
  ) {}

  get isError(): boolean {
    return this.type === "ERROR";
  }
  get text(): string {
    return this.source.slice(this.startIndex, this.endIndex);
  }
  get childCount(): number {
    return this.children.length;
  }
  child(i: number): SyntaxNode | undefined {
    return this.children[i];
  }
  /** The named children (computed once; callers only read it). */
  get namedChildren(): SyntaxNode[] {
    return (this.named ??= this.children.filter((c) => c.isNamed));
  }
  get namedChildCount(): number {
    let n = 0;
    for (const c of this.children) if (c.isNamed) n++;
    return n;
  }
  childForFieldName(field: string): SyntaxNode | undefined {
    return this.children.find((c) => c.field === field);
  }
  fieldNameForChild(i: number): string | undefined {
    return this.children[i]?.field;
  }
}

export type Node = SyntaxNode;

/** The deepest node under `root` whose range contains `index`. */
export function descendantForIndex(root: SyntaxNode, index: number): SyntaxNode {
  let node = root;
  for (;;) {
    const next = node.children.find((c) => c.startIndex <= index && index < c.endIndex);
    if (!next) return node;
    node = next;
  }
}

/** A parsed script: its root and how deeply its nodes nest (the walker recurses that deep). */
export interface ParsedScript {
  root: SyntaxNode;
  depth: number;
}

/** Parents whose children's field names the analysis reads; other fields are not fetched. */
const FIELD_PARENTS = new Set([
  "command", "redirected_statement", "file_redirect", "expansion", "variable_assignment",
  "subscript", "binary_expression", "function_definition",
]);

/** Parses bash source into a plain syntax tree. Throws only if the WASM runtime itself fails. */
export function parseBash(source: string): SyntaxNode {
  return parseBashScript(source).root;
}

export function parseBashScript(source: string): ParsedScript {
  return parseWith(source, directExports);
}

/** The same copy through web-tree-sitter's public TreeCursor methods (the tests compare both). */
export function parseBashScriptPublic(source: string): ParsedScript {
  return parseWith(source, undefined);
}

/** Whether parses use the direct cursor calls (false: the public API). */
export function usesDirectCursor(): boolean {
  return directExports !== undefined;
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

function parseWith(source: string, exports: CursorExports | undefined): ParsedScript {
  const tree = parser.parse(source);
  if (!tree) throw new Error("tree-sitter returned no tree");
  try {
    const checkMissing = tree.rootNode.hasError;
    const cursor = tree.walk();
    return copyTree(exports ? new DirectCursor(exports, tree) : new PublicCursor(cursor), source, checkMissing);
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

/** Copies the tree under the cursor into SyntaxNodes in one walk, then frees the cursor. */
function copyTree(cursor: CursorOps, source: string, checkMissing: boolean): ParsedScript {
  const types = language.types;
  const fields = language.fields;
  let nextId = 0;
  const make = (typeId: number, parentTypeId: number): SyntaxNode => {
    const field = parentTypeId >= 0 && readsFields(parentTypeId) ? fields[cursor.fieldId()] : undefined;
    return new SyntaxNode(
      nextId++,
      types[typeId] ?? "ERROR",
      isNamedType(typeId),
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

const readsFieldsById: boolean[] = [];
/** Whether the analysis reads the field names of this node type's children. */
function readsFields(typeId: number): boolean {
  let reads = readsFieldsById[typeId];
  if (reads === undefined) {
    reads = FIELD_PARENTS.has(language.types[typeId] ?? "ERROR");
    readsFieldsById[typeId] = reads;
  }
  return reads;
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

function directCursorWorks(exports: CursorExports | undefined): CursorExports | undefined {
  if (!exports) return undefined;
  try {
    for (const script of SELF_CHECK) {
      if (!sameTree(parseWith(script, exports).root, parseWith(script, undefined).root)) return undefined;
    }
    return exports;
  } catch {
    return undefined;
  }
}

const directExports = directCursorWorks(loadedExports);
/** How long loading the grammar took at module load, in ms (reported by the bench). */
export const parserInitMs = performance.now() - initStarted;
