// Source-level facts the walker needs beyond the grammar: where bash joins lines, which text
// between nodes is only blank, whether a here-document is literal.
import { descendantForIndex, parseBash, type Node } from "./parser.js";

/**
 * Bash removes backslash-newline before splitting words (`r\<newline>m` is `rm`); the grammar
 * splits there instead. Removes every continuation outside single quotes, `$'…'`, comments and
 * quoted here-documents, where bash keeps them.
 */
export function removeLineContinuations(source: string): string {
  if (!source.includes("\\\n")) return source;
  const root = parseBash(source);
  let out = "";
    let last = 0;
    for (let i = source.indexOf("\\\n"); i !== -1; i = source.indexOf("\\\n", i + 2)) {
      let backslashes = 0;
      for (let j = i; j >= 0 && source[j] === "\\"; j--) backslashes++;
      if (backslashes % 2 === 0) continue;
      if (isInLiteralContext(descendantForIndex(root, i))) continue;
      out += source.slice(last, i);
      last = i + 2;
    }
  return out + source.slice(last);
}

function isInLiteralContext(node: Node | undefined): boolean {
  for (let n = node; n; n = n.parent) {
    if (n.type === "raw_string" || n.type === "ansi_c_string" || n.type === "comment") return true;
    if (n.type === "heredoc_body" && n.parent && heredocIsQuoted(n.parent)) return true;
  }
  return false;
}

/** Gaps between sibling nodes may hold only blanks, newlines and line continuations. */
export function isBlankGap(source: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = source.charCodeAt(i);
    if (c === 0x20 || c === 0x09 || c === 0x0a) continue;
    if (c === 0x5c && source.charCodeAt(i + 1) === 0x0a && i + 1 < to) {
      i++;
      continue;
    }
    return false;
  }
  return true;
}
/**
 * Nodes whose parts bash reads on one line (continuations are removed before the parse). The
 * grammar can join lines into one of them: after three piped commands it keeps a branch alive in
 * which a newline is only a blank, and a redirect on the next line makes that branch win
 * (`a | b | c` newline `rm x > f` is `a | (b | c rm x) > f` to it). The walker refuses such a tree.
 */
const LINE_BOUND = new Set(["command", "file_redirect", "variable_assignments"]);

/** Whether `node` is one bash reads on one line and the grammar gave it parts on two. */
export function joinsLines(node: Node, source: string): boolean {
  if (!LINE_BOUND.has(node.type)) return false;
  const children = node.children;
  for (let k = 1; k < children.length; k++) {
    const from = (children[k - 1] as Node).endIndex;
    const to = (children[k] as Node).startIndex;
    for (let i = from; i < to; i++) if (source.charCodeAt(i) === 0x0a) return true;
  }
  return false;
}

export function heredocIsQuoted(redirect: Node): boolean {
  const start = redirect.children.find((c) => c.type === "heredoc_start");
  return start !== undefined && /['"\\]/.test(start.text);
}
