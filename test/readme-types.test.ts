// Every ```ts block of README.md compiles as a user's code would: in a strict project of its own
// that imports the package by its name (node_modules/@armature-dev/armature → this repository,
// resolved through package.json `exports` to the built .d.ts files), with `tsc --noEmit`.
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { withTempDir } from "./helpers.js";

const root = fileURLToPath(new URL("..", import.meta.url));

/** The ```ts blocks of a Markdown text, with the line each starts on. */
function typeScriptBlocks(markdown: string): Array<{ line: number; code: string }> {
  const blocks: Array<{ line: number; code: string }> = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== "```ts" && lines[i] !== "```typescript") continue;
    const end = lines.indexOf("```", i + 1);
    blocks.push({ line: i + 2, code: lines.slice(i + 1, end).join("\n") });
    i = end;
  }
  return blocks;
}

/** A project beside the repository's: its node_modules links to ours, plus the package itself. */
function linkNodeModules(dir: string): void {
  const own = join(root, "node_modules");
  const theirs = join(dir, "node_modules");
  mkdirSync(join(theirs, "@armature-dev"), { recursive: true });
  symlinkSync(root, join(theirs, "@armature-dev", "armature"), "dir");
  for (const entry of readdirSync(own)) {
    if (entry === ".bin" || entry === "@armature-dev") continue;
    symlinkSync(join(own, entry), join(theirs, entry), "dir");
  }
}

describe("README.md's TypeScript", () => {
  const blocks = typeScriptBlocks(readFileSync(join(root, "README.md"), "utf8"));

  it("has blocks to check", () => {
    expect(blocks.length).toBeGreaterThanOrEqual(3);
  });

  it("type-checks every block in a strict project that imports the package by name", async () => {
    await withTempDir(async (dir) => {
      linkNodeModules(dir);
      writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "readme-user", type: "module", private: true }));
      const compilerOptions = { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", lib: ["ES2023"], types: ["node"], strict: true, noEmit: true, skipLibCheck: true };
      writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, include: ["*.ts"] }));
      for (const b of blocks) writeFileSync(join(dir, `readme-line-${b.line}.ts`), /^\s*(import|export)\s/m.test(b.code) ? b.code : `${b.code}\nexport {};\n`, { flag: "wx" });
      const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
      const r = spawnSync(process.execPath, [tsc, "-p", dir, "--pretty", "false"], { cwd: dir, encoding: "utf8", timeout: 120_000 });
      // Errors name the README line their block starts on (readme-line-N.ts).
      expect(r.stdout + r.stderr).toBe("");
      expect(r.status).toBe(0);
    });
  }, 180_000);
});
