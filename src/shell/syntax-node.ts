// The syntax tree the analysis walks: plain JS objects, built by tree-sitter's copy (parser.ts)
// or by the parser of the everyday subset (fast-parse.ts), the same tree either way.

/** Leaves share this array (nothing writes to a node's children after the copy). */
export const NO_CHILDREN: SyntaxNode[] = [];

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
    public field: string | undefined,
    readonly isMissing: boolean,
    private readonly source: string,
  ) {}

  get isError(): boolean {
    return this.type === "ERROR";
  }
  get text(): string {
    return this.source.slice(this.startIndex, this.endIndex);
  }
  /** `text.includes(c)` for one character, without copying the text out of the source. */
  textHasChar(c: string): boolean {
    const code = c.charCodeAt(0);
    for (let i = this.startIndex; i < this.endIndex; i++) if (this.source.charCodeAt(i) === code) return true;
    return false;
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

