// The bash grammar, loaded once. The top-level `await` makes every importer wait for the WASM
// modules, so that analysis afterwards is synchronous (`isReadOnly(input)` is a sync method).
import { createRequire } from "node:module";
import { Language, Parser, type Node, type Tree } from "web-tree-sitter";

const require = createRequire(import.meta.url);

async function loadBashParser(): Promise<Parser> {
  const runtimeWasm = require.resolve("web-tree-sitter/tree-sitter.wasm");
  const bashWasm = require.resolve("tree-sitter-bash/tree-sitter-bash.wasm");
  await Parser.init({ locateFile: () => runtimeWasm });
  const language = await Language.load(bashWasm);
  const parser = new Parser();
  parser.setLanguage(language);
  return parser;
}

const initStarted = performance.now();
const parser = await loadBashParser();
/** How long loading the grammar took at module load, in ms (reported by the bench). */
export const parserInitMs = performance.now() - initStarted;

/** Parses bash source into a syntax tree. Throws only if the WASM runtime itself fails. */
export function parseBash(source: string): Tree {
  const tree = parser.parse(source);
  if (!tree) throw new Error("tree-sitter returned no tree");
  return tree;
}

export type { Node, Tree };
