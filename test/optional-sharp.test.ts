// sharp is optional: without it (here: a loader hook makes `import("sharp")` fail as for a
// package that is not installed), Read still shows an image that fits as it is, and refuses one
// that needs downscaling with a message naming sharp; nothing crashes. Checked in fresh
// processes on the built package. The header reader the fallback uses is checked against
// sharp's own encoder and metadata.
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import sharp, { type Sharp } from "sharp";
import { describe, expect, it } from "vitest";
import { headerDimensions } from "../src/tools/util/optional-sharp.js";
import { packageEntry, withTempDir } from "./helpers.js";

const png = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: "#3060a0" } }).png().toBuffer();

describe("Read without sharp", () => {
  it("shows a small image as it is and refuses a large one, naming sharp", async () => {
    await withTempDir(async (dir) => {
      writeFileSync(join(dir, "small.png"), await png(40, 30));
      writeFileSync(join(dir, "wide.png"), await png(3000, 20));
      const hooks = join(dir, "hooks.mjs");
      writeFileSync(
        hooks,
        `export async function resolve(specifier, context, next) {
  if (specifier === "sharp") throw Object.assign(new Error("Cannot find package 'sharp'"), { code: "ERR_MODULE_NOT_FOUND" });
  return next(specifier, context);
}\n`,
      );
      const register = join(dir, "register.mjs");
      writeFileSync(register, `import { register } from "node:module"; register(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
      const script = `const m = await import(${JSON.stringify(packageEntry())});
const s = m.createSession({ cwd: ${JSON.stringify(dir)}, tools: m.builtinTools() });
const results = await s.runTurn([
  { type: "tool_use", id: "a", name: "Read", input: { file_path: ${JSON.stringify(join(dir, "small.png"))} } },
  { type: "tool_use", id: "b", name: "Read", input: { file_path: ${JSON.stringify(join(dir, "wide.png"))} } },
]);
await s.close();
let sharpLoads = true; try { await import("sharp"); } catch { sharpLoads = false; }
console.log(JSON.stringify({ results, sharpLoads }));`;
      const r = spawnSync(process.execPath, ["--import", pathToFileURL(register).href, "--input-type=module", "-e", script], { encoding: "utf8", cwd: dir });
      expect(r.stderr).toBe("");
      const out = JSON.parse(r.stdout) as { sharpLoads: boolean; results: Array<{ is_error?: boolean; content: unknown }> };
      expect(out.sharpLoads).toBe(false);
      const [small, wide] = out.results;
      expect(small!.is_error).toBeUndefined();
      expect(JSON.stringify(small!.content)).toContain('"type":"image"');
      expect(wide!.is_error).toBe(true);
      expect(JSON.stringify(wide!.content)).toMatch(/3000×20.*needs the optional package sharp, and sharp is not installed/);
    });
  });
});

describe("headerDimensions", () => {
  const shapes: Array<[number, number]> = [[1, 1], [40, 30], [3000, 20], [17, 2049]];
  const formats = [
    { type: "image/png" as const, encode: (s: Sharp) => s.png() },
    { type: "image/jpeg" as const, encode: (s: Sharp) => s.jpeg() },
    { type: "image/gif" as const, encode: (s: Sharp) => s.gif() },
    { type: "image/webp" as const, encode: (s: Sharp) => s.webp() },
    { type: "image/webp" as const, encode: (s: Sharp) => s.webp({ lossless: true }) },
  ];
  it.each(formats.flatMap((f) => shapes.map(([w, h]) => ({ ...f, w, h, name: `${f.type} ${w}×${h}` }))))("$name", async ({ type, encode, w, h }) => {
    const bytes = await encode(sharp({ create: { width: w, height: h, channels: 4, background: { r: 10, g: 20, b: 30, alpha: 0.5 } } })).toBuffer();
    expect(headerDimensions(bytes, type)).toEqual({ width: w, height: h });
  });

  it("a truncated or foreign header gives no size instead of throwing", () => {
    expect(headerDimensions(Buffer.from([0x89, 0x50, 0x4e, 0x47]), "image/png")).toBeUndefined();
    expect(headerDimensions(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 2]), "image/jpeg")).toBeUndefined();
    expect(headerDimensions(Buffer.from("RIFF\0\0\0\0WEBPXXXX"), "image/webp")).toBeUndefined();
  });
});
