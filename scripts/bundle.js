// Bundles tsc's output (dist/) into dist/bundle/: the library's entries and the CLI's, with the
// chunks they share, and a chunk per dynamic import (commands and heavy parts stay lazy). Node's
// ES module loader costs about a millisecond per module at start-up; armature and zod are 400.
// Small pure-JS dependencies on the start-up path are bundled; the rest (SDKs, MCP, tree-sitter,
// sharp, …) stay external, installed beside armature and loaded by Node when first needed.
// zod is bundled: schemas from the caller's own zod 4 work with it (zod 4 keeps its registry on
// globalThis, and schemas carry their own parse and JSON Schema code; test/bundle.test.ts).
import { copyFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { rolldown } from "rolldown";

const BUNDLED = new Set(["zod", "picomatch", "diff", "@anthropic-ai/sdk", "@opentelemetry/api", "standardwebhooks", "openai"]);
const packageOf = (id) => id.split("/").slice(0, id.startsWith("@") ? 2 : 1).join("/");

const bundle = await rolldown({
  input: { index: "dist/index.js", "ai-sdk": "dist/ai-sdk/index.js", "openai-agents": "dist/openai-agents/index.js", cli: "dist/cli/main.js" },
  platform: "node",
  external: (id) => id.startsWith("node:") || (!id.startsWith(".") && !id.startsWith("/") && !BUNDLED.has(packageOf(id))),
});
await bundle.write({
  dir: "dist/bundle",
  format: "esm",
  chunkFileNames: "[name]-[hash].js",
  sourcemap: true,
  cleanDir: true,
  codeSplitting: {
    groups: [
      { name: "anthropic-sdk", test: /node_modules[\\/](@anthropic-ai[\\/]sdk|@opentelemetry[\\/]api|standardwebhooks)[\\/]/ },
      { name: "openai-sdk", test: /node_modules[\\/]openai[\\/]/ },
    ],
  },
});
await bundle.close();

// The Bash grammar ships as its .wasm alone (1.3 MB; the tree-sitter-bash package, a build-time
// dependency, is 20 MB of sources and native prebuilds armature does not use), beside the bundle
// at dist/grammar/, where src/shell/parser.ts looks first. Its licence goes with it.
const require = createRequire(import.meta.url);
const grammarDir = dirname(require.resolve("tree-sitter-bash/package.json"));
mkdirSync("dist/grammar", { recursive: true });
copyFileSync(join(grammarDir, "tree-sitter-bash.wasm"), "dist/grammar/tree-sitter-bash.wasm");
copyFileSync(join(grammarDir, "LICENSE"), "dist/grammar/tree-sitter-bash.LICENSE");
