// armature beside the SDKs as a user installs them (issue 37): `npm pack` of this checkout (built
// by `npm run test:ecosystem` first), installed with a plain `npm i` (no --legacy-peer-deps) into
// an empty project beside each supported major of `ai` and `@openai/agents` and beside `latest`
// (added afterwards, `npm i ai@latest @openai/agents@latest`, as a user adding an SDK would; a
// bare `npm i ai` on Node 20 gets ai 6 with or without armature: npm skips versions whose
// `engines` exclude the running Node, and ai 7 declares Node 22). In each
// project the README's adapter blocks type-check, and two apps in the README's style run against
// a scripted model server on 127.0.0.1 with an approval round. npm's cache is used first
// (--prefer-offline); without a cache hit the registry is needed, and only when it cannot be
// reached is a project skipped, saying so. Its own script (the installs take a minute or more):
// `npm run test:ecosystem`, vitest.ecosystem.config.ts.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentsApp, aiSdkApp, readmeAdapterBlocks, scriptedWriter, type AppReport } from "./ecosystem-apps.js";
import { startMockModelServer } from "./mock-model-server.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "armature-ecosystem-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function npm(args: string[], cwd: string): { status: number | null; output: string } {
  const r = spawnSync("npm", args, { cwd, encoding: "utf8", timeout: 300_000, env: { ...process.env, npm_config_fund: "false", npm_config_audit: "false", npm_config_update_notifier: "false" } });
  return { status: r.status, output: `${r.stdout ?? ""}${r.stderr ?? ""}${r.error ? String(r.error) : ""}` };
}

let tarball = "";
beforeAll(() => {
  const pack = spawnSync("npm", ["pack", "--json", "--pack-destination", dir], { cwd: root, encoding: "utf8", env: { ...process.env, ARMATURE_PACK_PREBUILT: "1" } });
  if (pack.status !== 0) throw new Error(`npm pack failed:\n${pack.stderr}`);
  tarball = join(dir, (JSON.parse(pack.stdout.slice(pack.stdout.indexOf("["))) as Array<{ filename: string }>)[0]!.filename);
}, 120_000);

/** Whether the npm registry answers (an install that failed for want of it is skipped, not failed). */
function registryReachable(): boolean {
  return spawnSync("npm", ["ping"], { encoding: "utf8", timeout: 30_000 }).status === 0;
}

interface Peers {
  name: string;
  /** Installed together with the tarball; `undefined`: the tarball alone, then the SDKs at `latest` by a second `npm i`. */
  specs?: string[];
  aiMajor: "6" | "7" | "latest";
}

// The oldest and newest supported majors, and whatever is `latest` today.
const MATRIX: Peers[] = [
  { name: "ai 6, @openai/agents 0.14", specs: ["ai@6", "@ai-sdk/openai-compatible@2", "@openai/agents@~0.14.3"], aiMajor: "6" },
  { name: "ai 7, @openai/agents 0.20", specs: ["ai@7", "@ai-sdk/openai-compatible@3", "@openai/agents@~0.20.0"], aiMajor: "7" },
  { name: "latest ai and @openai/agents, added after armature", aiMajor: "latest" },
];

interface Project {
  dir: string;
  versions: Record<string, string>;
  installOutput: string;
}

/** An empty project with the tarball and the peers installed by plain `npm i`; undefined when the registry is out of reach. */
function installProject(peers: Peers, index: number): Project | undefined {
  const project = join(dir, `project-${index}`);
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), `${JSON.stringify({ name: `ecosystem-${index}`, version: "1.0.0", private: true, type: "module" }, null, 2)}\n`);
  const base = ["install", "--prefer-offline", "--no-audit", "--no-fund"];
  const steps = peers.specs
    ? [[...base, tarball, "@types/node@20", ...peers.specs]]
    : [[...base, tarball, "@types/node@20"], [...base, "ai@latest", "@ai-sdk/openai-compatible@latest", "@openai/agents@latest"]];
  let installOutput = "";
  for (const args of steps) {
    const r = npm(args, project);
    installOutput += r.output;
    if (r.status !== 0) {
      if (!registryReachable()) return undefined;
      throw new Error(`npm ${args.join(" ")} failed (exit ${r.status}) in ${project}:\n${r.output.slice(-3000)}`);
    }
  }
  const versions: Record<string, string> = {};
  for (const name of ["ai", "@openai/agents", "@ai-sdk/openai-compatible", "zod"]) {
    versions[name] = (JSON.parse(readFileSync(join(project, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;
  }
  return { dir: project, versions, installOutput };
}

/** The registry's `latest` of a package (npm's cache first). */
function latestVersion(name: string): string {
  const r = spawnSync("npm", ["view", `${name}@latest`, "version", "--prefer-offline"], { encoding: "utf8", timeout: 60_000 });
  return r.stdout.trim();
}

function run(command: string, args: string[], cwd: string, env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d));
    child.stderr.on("data", (d: Buffer) => (stderr += d));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

MATRIX.forEach((peers, index) => {
  describe(`armature installed beside ${peers.name}`, () => {
    let project: Project | undefined;
    beforeAll(() => {
      project = installProject(peers, index);
      if (!project) console.warn(`ecosystem: skipped "${peers.name}": the npm registry is out of reach and npm's cache cannot serve the install`);
    }, 600_000);
    const skipUnlessInstalled = (ctx: { skip: (note?: string) => void }) => {
      if (!project) ctx.skip("the npm registry is out of reach");
      return project!;
    };

    it("installs with a plain npm i (no ERESOLVE) and gets the major asked for", (ctx) => {
      const p = skipUnlessInstalled(ctx);
      expect(p.installOutput).not.toMatch(/ERESOLVE|legacy-peer-deps|Could not resolve dependency/);
      console.log(`ecosystem: ${peers.name}: ${JSON.stringify(p.versions)}`);
      const ai = p.versions.ai!;
      const agents = p.versions["@openai/agents"]!;
      if (peers.aiMajor === "latest") {
        // `npm i ai@latest` beside armature gets the registry's latest (no peer range holds it back).
        expect(ai).toBe(latestVersion("ai"));
        expect(agents).toBe(latestVersion("@openai/agents"));
      } else {
        expect(ai.split(".")[0]).toBe(peers.aiMajor);
        expect(agents).toMatch(peers.aiMajor === "6" ? /^0\.14\./ : /^0\.20\./);
      }
    });

    it("type-checks the README's adapter blocks and the apps, strict, against the installed types", (ctx) => {
      const p = skipUnlessInstalled(ctx);
      const ai7 = Number(p.versions.ai!.split(".")[0]) >= 7;
      const readme = readmeAdapterBlocks(root);
      // On AI SDK 6 the README says to leave out toolApproval (it has no such option).
      const aiBlock = ai7 ? readme.aiSdk : readme.aiSdk.replace("toolApproval: aiSdkToolApproval(session), ", "");
      if (!ai7) expect(aiBlock).not.toBe(readme.aiSdk);
      writeFileSync(join(p.dir, "readme-ai-sdk.ts"), aiBlock);
      writeFileSync(join(p.dir, "readme-agents.ts"), readme.agents);
      writeFileSync(join(p.dir, "app-ai.ts"), aiSdkApp({ toolApproval: ai7 }));
      writeFileSync(join(p.dir, "app-agents.ts"), agentsApp());
      const compilerOptions = { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", lib: ["ES2023"], types: ["node"], strict: true, skipLibCheck: true, outDir: "out" };
      writeFileSync(join(p.dir, "tsconfig.json"), JSON.stringify({ compilerOptions, include: ["*.ts"] }));
      const tsc = spawnSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", p.dir, "--pretty", "false"], { cwd: p.dir, encoding: "utf8", timeout: 180_000 });
      expect(tsc.stdout + tsc.stderr).toBe("");
      expect(tsc.status).toBe(0);
    }, 200_000);

    for (const app of ["app-ai", "app-agents"] as const) {
      it(`runs ${app === "app-ai" ? "an AI SDK" : "an Agents SDK"} app against a scripted model: the approved write happens, the declined one does not`, async (ctx) => {
        const p = skipUnlessInstalled(ctx);
        const work = join(p.dir, `work-${app}`);
        mkdirSync(work);
        const server = await startMockModelServer();
        const script = scriptedWriter(work);
        server.push(script, script, script, script);
        try {
          const r = await run(process.execPath, [join(p.dir, "out", `${app}.js`)], p.dir, {
            WORK_DIR: work,
            MODEL_URL: server.url,
            OPENAI_BASE_URL: `${server.url}/v1`,
            OPENAI_API_KEY: "test",
            OPENAI_AGENTS_DISABLE_TRACING: "1",
          });
          expect(r.status, r.stderr).toBe(0);
          const report = JSON.parse(r.stdout.trim().split("\n").at(-1)!) as AppReport;
          expect(report.asked.map((a) => [a.tool, a.file])).toEqual([
            ["Write", join(work, "yes.txt")],
            ["Write", join(work, "no.txt")],
          ]);
          if (app === "app-ai" && Number(p.versions.ai!.split(".")[0]) >= 7) {
            // toolApproval: the request carries armature's reason.
            for (const a of report.asked) expect(a.reason).toMatch(/\S/);
          }
          expect(report).toMatchObject({ text: "done", yes: "approved\n", no: null });
          expect(server.requests.map((q) => q.url)).toEqual(["/v1/chat/completions", "/v1/chat/completions"]);
          // The model read back a result for the approved call and a refusal for the declined one.
          const last = JSON.stringify(server.requests.at(-1)!.body.messages);
          expect(last).toContain("yes.txt");
        } finally {
          await server.close();
        }
      }, 120_000);
    }
  });
});
