// Bundles tsc's output (dist/) into dist/bundle/: the library's entries and the CLI's, with the
// chunks they share, and a chunk per dynamic import (commands and heavy parts stay lazy). Node's
// ES module loader costs about a millisecond per module at start-up; armature and zod are 400.
// Small pure-JS dependencies on the start-up path are bundled, and so, as lazy chunks of their
// own, are the model SDKs, turndown (with its DOM, domino), web-tree-sitter and yaml (front
// matter): bundled they are a fraction of their installed size (the SDKs' packages are 49 MB
// installed, their chunks 1.7 MB; domino is 9 MB, mostly its tests; web-tree-sitter 5.8 MB for a
// 150 kB module and a 200 kB .wasm), and they are build-time devDependencies a user does not
// install. The rest (MCP, unpdf, Ajv; sharp, an optional peer) stay external, installed beside
// armature and loaded by Node when first needed.
// zod is bundled: schemas from the caller's own zod 4 work with it (zod 4 keeps its registry on
// globalThis, and schemas carry their own parse and JSON Schema code; test/bundle.test.ts).
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { builtinModules, createRequire } from "node:module";
import { dirname, join } from "node:path";
import { rolldown } from "rolldown";

const BUNDLED = new Set(["zod", "picomatch", "diff", "@anthropic-ai/sdk", "@opentelemetry/api", "standardwebhooks", "openai", "turndown", "@mixmark-io/domino", "web-tree-sitter", "@stablelib/base64", "fast-sha256", "yaml"]);
const packageOf = (id) => id.split("/").slice(0, id.startsWith("@") ? 2 : 1).join("/");
const manifest = JSON.parse(readFileSync("package.json", "utf8"));
const installed = new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})]);
const externals = new Set();
const isExternal = (id) => {
  if (id.startsWith("node:") || builtinModules.includes(id)) return true;
  if (id.startsWith(".") || id.startsWith("/") || id.startsWith("\0") || BUNDLED.has(packageOf(id))) return false;
  externals.add(packageOf(id));
  return true;
};

const bundle = await rolldown({
  input: { index: "dist/index.js", "ai-sdk": "dist/ai-sdk/index.js", "openai-agents": "dist/openai-agents/index.js", cli: "dist/cli/main.js" },
  platform: "node",
  // web-tree-sitter (emscripten output) has a direct eval for EM_ASM snippets; rolldown warns.
  onwarn: (warning, warn) => (warning.code === "EVAL" && /web-tree-sitter/.test(warning.id ?? warning.message) ? undefined : warn(warning)),
  external: isExternal,
});
const { output } = await bundle.write({
  dir: "dist/bundle",
  format: "esm",
  chunkFileNames: "[name]-[hash].js",
  sourcemap: true,
  cleanDir: true,
  codeSplitting: {
    groups: [
      { name: "anthropic-sdk", test: /node_modules[\\/](@anthropic-ai[\\/]sdk|@opentelemetry[\\/]api|standardwebhooks)[\\/]/ },
      { name: "openai-sdk", test: /node_modules[\\/]openai[\\/]/ },
      { name: "web-tree-sitter", test: /node_modules[\\/]web-tree-sitter[\\/]/ },
      { name: "turndown", test: /node_modules[\\/](turndown|@mixmark-io[\\/]domino)[\\/]/ },
      { name: "yaml", test: /node_modules[\\/]yaml[\\/]/ },
    ],
  },
});
await bundle.close();

// Every package the bundle leaves to Node (an import or a require) must be one a user's install
// has: a dependency or a peer. A devDependency left external works in the clone and fails for
// every user (as @stablelib/base64, required by the Anthropic SDK's webhooks code, once did).
const missing = [...externals].filter((p) => !installed.has(p));
if (missing.length > 0) throw new Error(`the bundle imports ${missing.join(", ")}, which package.json neither depends on nor has as a peer: bundle it (BUNDLED) or make it a dependency`);

// The vendor chunks ship without source maps (4 MB of the package; their code is the packages'
// own, readable as is). armature's own chunks keep theirs.
const VENDOR_CHUNKS = /^(anthropic-sdk|openai-sdk|turndown|web-tree-sitter|yaml)-/;
for (const chunk of output) {
  if (chunk.type !== "chunk" || !VENDOR_CHUNKS.test(chunk.fileName)) continue;
  const file = join("dist/bundle", chunk.fileName);
  writeFileSync(file, readFileSync(file, "utf8").replace(/\n\/\/# sourceMappingURL=\S+\s*$/, "\n"));
  rmSync(`${file}.map`);
}

// The bundled packages' licences (MIT, BSD, Apache-2.0 all ask that the notice go with the code),
// from the modules the chunks were actually built from.
const bundledDirs = new Set();
for (const chunk of output) {
  for (const id of chunk.type === "chunk" ? chunk.moduleIds : []) {
    const m = /^(.*[\\/]node_modules[\\/](?:@[^\\/]+[\\/])?[^\\/]+)[\\/]/.exec(id.replace(/^\0/, ""));
    if (m) bundledDirs.add(m[1]);
  }
}
const notices = [...bundledDirs]
  .map((dir) => {
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    const file = readdirSync(dir).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f));
    const notice = readdirSync(dir).find((f) => /^notice(\.|$)/i.test(f));
    const text = [file, notice].filter(Boolean).map((f) => readFileSync(join(dir, f), "utf8").trim()).join("\n\n");
    return `${pkg.name}@${pkg.version} (${pkg.license ?? "see below"})\n\n${text || `No licence file in the package; its package.json says ${pkg.license}.`}\n`;
  })
  .sort();
writeFileSync("dist/bundle/THIRD-PARTY-LICENSES.txt", `Packages bundled into armature's dist/bundle/, with their licences.\n\n${notices.join("\n" + "-".repeat(72) + "\n\n")}`);

// The Bash grammar ships as its .wasm alone (1.3 MB; the tree-sitter-bash package, a build-time
// dependency, is 20 MB of sources and native prebuilds armature does not use), beside the bundle
// at dist/grammar/, where src/shell/parser.ts looks first. Its licence goes with it. So does the
// tree-sitter runtime's .wasm (web-tree-sitter's module is in the bundle; its licence is in
// THIRD-PARTY-LICENSES.txt).
const require = createRequire(import.meta.url);
const grammarDir = dirname(require.resolve("tree-sitter-bash/package.json"));
mkdirSync("dist/grammar", { recursive: true });
copyFileSync(join(grammarDir, "tree-sitter-bash.wasm"), "dist/grammar/tree-sitter-bash.wasm");
copyFileSync(join(grammarDir, "LICENSE"), "dist/grammar/tree-sitter-bash.LICENSE");
copyFileSync(require.resolve("web-tree-sitter/tree-sitter.wasm"), "dist/grammar/tree-sitter.wasm");
