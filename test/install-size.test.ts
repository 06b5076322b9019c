// The lean install (issue 22), as a user gets it: `npm pack` of this checkout installed into an
// empty project with production dependencies only (bench/install-size.js; npm's cache first,
// which `npm ci` has filled; without the registry or a cache this fails saying so, it does not
// skip). The install is ≤ 50 MB on disk and prints no install-script warning; none of the
// build-time packages (the model SDKs, tree-sitter-bash, web-tree-sitter, turndown) nor the
// optional sharp is installed, and still the installed `armature` runs the README example,
// `armature agent` talks to Anthropic and OpenAI (the SDKs are inside the bundle) and WebFetch
// makes Markdown (so is turndown); the root entry's types reach only installed packages.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TARGET_MB, packAndInstall, root, type Installed } from "../bench/install-size.js";
import { anthropicReply, chatReply, startMockModelServer } from "./mock-model-server.js";

let installed: Installed;
beforeAll(() => {
  installed = packAndInstall({ offline: true });
}, 180_000);
afterAll(() => {
  if (installed) rmSync(installed.dir, { recursive: true, force: true });
});

const bin = () => join(installed.project, "node_modules", ".bin", "armature");

/** Runs the installed bin without blocking the event loop (the mock model server answers in-process). */
function run(args: string[], env: Record<string, string> = {}, command = bin()): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: installed.project, env: { ...cleanEnv(), ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d));
    child.stderr.on("data", (d: Buffer) => (stderr += d));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

const runNode = (args: string[]) => run(args, {}, process.execPath);

/** The environment without model or armature settings, with a home of its own. */
function cleanEnv(): Record<string, string> {
  const home = join(installed.dir, "home");
  mkdirSync(home, { recursive: true });
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !/^(ANTHROPIC_|OPENAI_|ARMATURE_)/.test(k)) env[k] = v;
  return { ...env, HOME: home, XDG_CONFIG_HOME: join(home, ".config"), ARMATURE_CONFIG_DIR: join(home, ".armature") };
}

describe("the installed package", () => {
  it(`is at most ${TARGET_MB} MB on disk, with no install-script warning`, () => {
    console.log(`installed: ${installed.diskMb.toFixed(1)} MB on disk (${installed.mb.toFixed(1)} MB of files), ${installed.packages.length} packages`);
    expect(installed.diskMb, JSON.stringify(installed.largest)).toBeLessThanOrEqual(TARGET_MB);
    expect(installed.installOutput).not.toMatch(/install.scripts|allowScripts|node-gyp/i);
    const manifest = JSON.parse(readFileSync(join(installed.project, "node_modules/@armature-dev/armature/package.json"), "utf8")) as { scripts?: Record<string, string> };
    expect(Object.keys(manifest.scripts ?? {})).not.toContain("prepare");
    // The checkout's own package.json keeps its prepare script (npm ci builds dist/ with it).
    expect((JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts.prepare).toBe("npm run build");
    expect(existsSync(join(root, ".package.json.packing"))).toBe(false);
  });

  it("has none of the build-time packages nor the optional sharp", () => {
    for (const name of ["@anthropic-ai/sdk", "openai", "tree-sitter-bash", "web-tree-sitter", "turndown", "sharp", "ai", "@openai/agents"]) {
      expect(installed.packages, name).not.toContain(name);
    }
    expect(installed.packages.filter((p) => p.startsWith("@img/"))).toEqual([]);
    expect(installed.packages).toContain("zod"); // the one required peer
  });

  it("runs the README example (Glob, Grep, Read, Bash through the shipped grammar, a refused Edit)", async () => {
    const r = await run(["exec", join(root, "examples/turns.jsonl"), "--cwd", join(root, "examples/project")]);
    expect(r.status, r.stderr).toBe(0);
    const repo = spawnSync(process.execPath, [join(root, "bin/armature.js"), "exec", "examples/turns.jsonl", "--cwd", "examples/project"], { cwd: root, encoding: "utf8" });
    expect(r.stdout).toBe(repo.stdout);
    expect(r.stdout).toContain(" 12 total");
    expect(r.stdout).toContain("Permission to use Edit was denied");
  });

  it("runs `armature agent` against Anthropic and OpenAI without either SDK installed", async () => {
    const server = await startMockModelServer([anthropicReply([{ type: "text", text: "hello from the Messages API" }]), chatReply({ text: "hello from Chat Completions" })]);
    try {
      const a = await run(["agent", "-p", "hi", "--provider", "anthropic", "--base-url", server.url, "--model", "claude-mock"], { ANTHROPIC_API_KEY: "test-key" });
      expect(a.stdout, a.stderr).toContain("hello from the Messages API");
      const o = await run(["agent", "-p", "hi", "--provider", "openai", "--base-url", server.url, "--model", "gpt-mock"], { OPENAI_API_KEY: "test-key" });
      expect(o.stdout, o.stderr).toContain("hello from Chat Completions");
      expect(server.requests.map((q) => q.url)).toEqual(["/v1/messages", "/chat/completions"]);
    } finally {
      await server.close();
    }
  });

  it("turns a fetched page into Markdown (turndown and its DOM are in the bundle, not installed)", async () => {
    const server = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<html><body><h1>Release notes</h1><p>Version <b>5.0</b></p></body></html>"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/page`;
      writeFileSync(
        join(installed.project, "fetch.mjs"),
        `import { createSession, createWebFetchTool } from "@armature-dev/armature";
const session = createSession({ cwd: process.cwd(), tools: [createWebFetchTool({ allowHosts: ["127.0.0.1"] })], allow: ["WebFetch"] });
const [result] = await session.runTurn([{ type: "tool_use", id: "f", name: "WebFetch", input: { url: ${JSON.stringify(url)}, prompt: "summarise" } }]);
await session.close();
console.log(JSON.stringify(result));
`,
      );
      const r = await runNode(["fetch.mjs"]);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toContain("# Release notes");
      expect(r.stdout).toContain("Version **5.0**");
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("has root-entry types that reach only installed packages", () => {
    // The .d.ts files the root entry's types reach (relative imports followed from index.d.ts),
    // and the packages they import: each must be installed, or a consumer compiling without
    // skipLibCheck gets "Cannot find module". (diff stays a dependency for this: its hunk type is
    // in the Edit tools' result types, though its code is bundled.) The adapter entries reach
    // their own optional peers (ai, @openai/agents), which their users have.
    const dist = join(installed.project, "node_modules/@armature-dev/armature/dist");
    const seen = new Set<string>();
    const imported = new Set<string>();
    const queue = [join(dist, "index.d.ts")];
    while (queue.length > 0) {
      const file = queue.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      const text = readFileSync(file, "utf8");
      for (const m of text.matchAll(/(?:from\s+|import\()"([^"]+)"/g)) {
        const spec = m[1]!;
        if (spec.startsWith("node:")) continue;
        if (!spec.startsWith(".")) {
          imported.add(spec.split("/").slice(0, spec.startsWith("@") ? 2 : 1).join("/"));
          continue;
        }
        const base = join(dirname(file), spec).replace(/\.js$/, "");
        queue.push(existsSync(`${base}.d.ts`) ? `${base}.d.ts` : join(base, "index.d.ts"));
      }
    }
    expect(seen.size).toBeGreaterThan(50);
    expect([...imported].filter((p) => !installed.packages.includes(p))).toEqual([]);
    expect([...imported].sort()).toEqual(expect.arrayContaining(["@modelcontextprotocol/sdk", "zod"]));
  });
});
