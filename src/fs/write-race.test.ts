import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { realpath } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { withTempDir } from "../../test/helpers.js";
import { call, fileSession, text } from "../../test/file-tools/harness.js";
import { createToolUseContext } from "../tool/context.js";
import { EditTool } from "../tools/edit/edit-tool.js";
import { ReadTool } from "../tools/read/read-tool.js";
import { WriteTool } from "../tools/write/write-tool.js";
import { atomicWriteFile, WriteTargetChangedError } from "./atomic-write.js";
import { runRace } from "../../test/file-tools/write-race.js";

async function layout(raw: string): Promise<{ proj: string; outside: string }> {
  const dir = await realpath(raw);
  const proj = join(dir, "proj");
  const outside = join(dir, "outside");
  mkdirSync(proj);
  mkdirSync(outside);
  writeFileSync(join(outside, "victim.txt"), "original\n");
  return { proj, outside };
}

describe("writes land exactly where they were judged", () => {
  it("a symlink created between the check and the write is an error, nothing is written outside", async () => {
    await withTempDir(async (raw) => {
      const { proj, outside } = await layout(raw);
      const context = createToolUseContext({ cwd: proj, permissionMode: "acceptEdits" });
      const cases: Array<[string, RegExp]> = [
        [join(outside, "new.txt"), /now leads to .*new\.txt, not to .*f0\.txt/],
        [join(outside, "victim.txt"), /was not written|has not been read/],
      ];
      for (const [i, [target, error]] of cases.entries()) {
        const input = { file_path: join(proj, `f${i}.txt`), content: "pwned\n" };
        await WriteTool.checkPermissions(input, context);
        // Dangling (new.txt) or not (victim.txt): either way the path now leads outside.
        symlinkSync(target, input.file_path);
        const err = await WriteTool.call(input, context, () => {}).catch((e: unknown) => e);
        expect(String(err)).toMatch(error);
        if (i === 0) expect(err).toBeInstanceOf(WriteTargetChangedError);
      }
      expect(readdirSync(outside)).toEqual(["victim.txt"]);
      expect(readFileSync(join(outside, "victim.txt"), "utf8")).toBe("original\n");
    });
  });

  it("a symlink planted just before the rename is an error; a link that was judged is still written through", async () => {
    await withTempDir(async (raw) => {
      const { proj, outside } = await layout(raw);
      const path = join(proj, "f.txt");
      await expect(
        atomicWriteFile(path, Buffer.from("pwned"), { hooks: { beforeRename: () => symlinkSync(join(outside, "victim.txt"), path) } }),
      ).rejects.toThrow(/became a symlink/);
      expect(readFileSync(join(outside, "victim.txt"), "utf8")).toBe("original\n");
      expect(readdirSync(proj)).toEqual(["f.txt"]); // the planted link; no temp file left
      // Benign control: a link inside the project, judged as such, updates its target.
      writeFileSync(join(proj, "real.txt"), "old\n");
      symlinkSync("real.txt", join(proj, "link.txt"));
      const s = fileSession(proj, [ReadTool, WriteTool, EditTool], { permissionMode: "acceptEdits" });
      await call(s, "Read", { file_path: join(proj, "link.txt") });
      expect(text(await call(s, "Edit", { file_path: join(proj, "link.txt"), old_string: "old", new_string: "new" }))).toContain("updated");
      expect(readFileSync(join(proj, "real.txt"), "utf8")).toBe("new\n");
      await s.close();
    });
  });

  it("a racing process swapping a link during many writes: 0 writes land outside", async () => {
    await withTempDir(async (raw) => {
      const { proj, outside } = await layout(raw);
      // Flips f.txt between nothing, a link to an existing outside file, and a dangling link outside.
      // Each round leaves the name free for a moment (sleep 0.01): without a calm moment a loaded
      // machine can refuse all 300 calls, and the test would no longer show that writes still land.
      const racer = spawn(
        "bash",
        ["-c", `cd "${proj}" && while :; do ln -sfn "${outside}/victim.txt" f.txt; rm -f f.txt; ln -sfn "${outside}/created.txt" f.txt; rm -f f.txt; sleep 0.01; done`],
        { stdio: "ignore" },
      );
      const s = fileSession(proj, [WriteTool], { permissionMode: "acceptEdits" });
      const outcomes = { written: 0, refused: 0 };
      try {
        for (let i = 0; i < 300; i++) {
          const block = await call(s, "Write", { file_path: join(proj, "f.txt"), content: `pwned ${i}\n` });
          if (block.is_error) outcomes.refused++;
          else outcomes.written++;
        }
      } finally {
        racer.kill("SIGKILL");
        await s.close();
      }
      expect(outcomes.written + outcomes.refused).toBe(300);
      expect(outcomes.written, "some raced calls wrote").toBeGreaterThan(0);
      expect(readdirSync(outside)).toEqual(["victim.txt"]);
      expect(readFileSync(join(outside, "victim.txt"), "utf8")).toBe("original\n");
    });
  });
});

describe("the race suites, bounded (npm run fuzz runs 10,000 per tool)", () => {
  for (const kind of ["symlink", "parent"] as const) {
    it(`${kind} race: 150 calls of each file tool, some written, some refused, 0 writes outside`, async () => {
      for (const tool of ["Write", "Edit", "MultiEdit", "NotebookEdit"] as const) {
        const r = await runRace(kind, tool, 150);
        expect(r.outside, `${tool}`).toEqual([]);
        expect(r.written + r.refused).toBe(150);
        // Nothing written would prove nothing, nor would nothing refused (the racer never met).
        expect(r.written, `${tool}: some raced calls wrote`).toBeGreaterThan(0);
        expect(r.refused, `${tool}: some raced calls met the racer`).toBeGreaterThan(0);
      }
    });
  }
});
