// The bash grammar, loaded once. The top-level `await` makes every importer wait for the WASM
// modules, so that analysis afterwards is synchronous (`isReadOnly(input)` is a sync method).
// Each parse is copied into plain JS objects in one cursor walk and the WASM tree is freed:
// every property read on a web-tree-sitter Node crosses into WASM, which is the dominant cost.
import { createRequire } from "node:module";
import { Language, Parser } from "web-tree-sitter";

const require = createRequire(import.meta.url);

async function loadBashParser(): Promise<{ parser: Parser; language: Language }> {
  const runtimeWasm = require.resolve("web-tree-sitter/tree-sitter.wasm");
  const bashWasm = require.resolve("tree-sitter-bash/tree-sitter-bash.wasm");
  await Parser.init({ locateFile: () => runtimeWasm });
  const language = await Language.load(bashWasm);
  const parser = new Parser();
  parser.setLanguage(language);
  return { parser, language };
}

const initStarted = performance.now();
const { parser, language } = await loadBashParser();
/** How long loading the grammar took at module load, in ms (reported by the bench). */
export const parserInitMs = performance.now() - initStarted;

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

/** A syntax node copied out of the WASM tree (the subset of web-tree-sitter's Node we use). */
export class SyntaxNode {
  readonly children: SyntaxNode[] = [];
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
  get namedChildren(): SyntaxNode[] {
    return this.children.filter((c) => c.isNamed);
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

/** Parses bash source into a plain syntax tree. Throws only if the WASM runtime itself fails. */
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
  const tree = parser.parse(source);
  if (!tree) throw new Error("tree-sitter returned no tree");
  try {
    const checkMissing = tree.rootNode.hasError;
    const types = language.types;
    const fields = language.fields;
    const cursor = tree.walk();
    let nextId = 0;
    const make = (parentType: string | undefined): SyntaxNode => {
      const typeId = cursor.nodeTypeId;
      const field = parentType !== undefined && FIELD_PARENTS.has(parentType) ? fields[cursor.currentFieldId] : undefined;
      return new SyntaxNode(
        nextId++,
        types[typeId] ?? "ERROR",
        isNamedType(typeId),
        field ?? undefined,
        checkMissing && cursor.nodeIsMissing,
        source,
      );
    };
    const root = make(undefined);
    const stack: SyntaxNode[] = [root];
    let depth = 1;
    const attach = (): void => {
      const parent = stack[stack.length - 1] as SyntaxNode;
      const node = make(parent.type);
      node.parent = parent;
      parent.children.push(node);
      stack.push(node);
      if (stack.length > depth) depth = stack.length;
    };
    // Read when leaving a node. (A parent's range is not always its children's: here-document
    // bodies hold text that is no child node.)
    const close = (): void => {
      const node = stack.pop() as SyntaxNode;
      node.startIndex = cursor.startIndex;
      node.endIndex = cursor.endIndex;
    };
    walk: for (;;) {
      if (cursor.gotoFirstChild()) {
        attach();
        continue;
      }
      for (;;) {
        close();
        if (cursor.gotoNextSibling()) {
          attach();
          break;
        }
        if (!cursor.gotoParent()) break walk;
      }
    }
    cursor.delete();
    return { root, depth };
  } finally {
    tree.delete();
  }
}
