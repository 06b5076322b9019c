// Start-up time is a feature: the main entry and the CLI must not load the model SDKs (or the
// AI SDK) until a provider makes its first request (the SDKs are bundled into chunks of their own,
// anthropic-sdk-*.js and openai-sdk-*.js, loaded by a dynamic import).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { packageEntry, withTempDir } from "./helpers.js";

const dist = fileURLToPath(new URL("../dist/", import.meta.url));

describe.skipIf(!existsSync(join(dist, "index.js")))("lazy SDK loading", () => {
  it("importing armature and its CLI loads no SDK; creating a provider does not either", async () => {
    await withTempDir(async (dir) => {
      const hooks = join(dir, "hooks.mjs");
      await writeFile(hooks, `export async function resolve(s, c, next) { const r = await next(s, c); if (/node_modules\\/(@anthropic-ai|openai|ai|@ai-sdk)\\/|bundle\\/(anthropic|openai)-sdk-/.test(r.url)) process.stderr.write("LOADED " + r.url + "\\n"); return r; }\n`);
      const register = join(dir, "register.mjs");
      await writeFile(register, `import { register } from "node:module"; register(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
      const script = `const m = await import(${JSON.stringify(packageEntry())});
await import(${JSON.stringify(pathToFileURL(join(dist, "bundle", "cli.js")).href)});
m.createProvider("anthropic", { apiKey: "k" }); m.createProvider("openai", { apiKey: "k" });
process.stderr.write("DONE\\n");`;
      const r = spawnSync(process.execPath, ["--import", pathToFileURL(register).href, "--input-type=module", "-e", script], { encoding: "utf8" });
      expect(r.stderr).toContain("DONE");
      expect(r.stderr).not.toContain("LOADED");
      // The control: the hook does see an SDK when one is loaded.
      const control = spawnSync(process.execPath, ["--import", pathToFileURL(register).href, "--input-type=module", "-e", `await import("openai");`], { encoding: "utf8", cwd: fileURLToPath(new URL("..", import.meta.url)) });
      expect(control.stderr).toContain("LOADED");
    });
  });
});
