// The session's own tool-results folder: a result too large to send whole is saved there and the
// model is told to Read it. Reading it (Read, Grep, Glob) needs no approval; nothing else is
// widened: another session's folder, `..` out of it, a symlink placed in it, the folder swapped
// for a symlink, and writes still ask, and deny rules still deny. Real sessions, real files.
import { mkdirSync, realpathSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { withTempDir } from "../../test/helpers.js";
import { runAgent } from "../agent/run-agent.js";
import type { ModelEvent, ModelRequest } from "../providers/model.js";
import { buildTool } from "../tool/build-tool.js";
import type { ToolUseBlock } from "../tool/types.js";
import { builtinTools } from "../tools/index.js";
import { createSession } from "./session.js";

interface Layout {
  proj: string;
  session: string;
  results: string;
  outside: string;
}

/** proj/ (the cwd), sessions/mine/tool-results/r.txt, sessions/other/tool-results/o.txt, outside/secret.txt. */
function layout(dir: string): Layout {
  const root = realpathSync(dir);
  const l = { proj: join(root, "proj"), session: join(root, "sessions", "mine"), results: join(root, "sessions", "mine", "tool-results"), outside: join(root, "outside") };
  mkdirSync(l.proj, { recursive: true });
  mkdirSync(l.results, { recursive: true });
  mkdirSync(join(root, "sessions", "other", "tool-results"), { recursive: true });
  mkdirSync(l.outside, { recursive: true });
  writeFileSync(join(l.results, "r.txt"), "saved result needle\n");
  writeFileSync(join(root, "sessions", "other", "tool-results", "o.txt"), "other session needle\n");
  writeFileSync(join(l.session, "transcript.jsonl"), "{}\n");
  writeFileSync(join(l.outside, "secret.txt"), "secret needle\n");
  return l;
}

type Expect = "runs" | "asks" | "denied by rule";
const cases: Array<[string, { call: (l: Layout) => ToolUseBlock; expect: Expect; deny?: (l: Layout) => string[]; before?: (l: Layout) => void; shows?: RegExp; hides?: RegExp }]> = [
  ["Read of a saved result", { call: (l) => read(join(l.results, "r.txt")), expect: "runs", shows: /saved result needle/ }],
  ["Grep in the folder", { call: (l) => ({ type: "tool_use", id: "g", name: "Grep", input: { pattern: "needle", path: l.results, output_mode: "content" } }), expect: "runs", shows: /saved result needle/ }],
  ["Glob in the folder", { call: (l) => ({ type: "tool_use", id: "g", name: "Glob", input: { pattern: "*.txt", path: l.results } }), expect: "runs", shows: /r\.txt/ }],
  ["Read of another session's saved result", { call: (l) => read(join(l.session, "..", "other", "tool-results", "o.txt")), expect: "asks" }],
  ["Read that climbs out with ..", { call: (l) => read(`${l.results}/../../other/tool-results/o.txt`), expect: "asks" }],
  ["Read of the session folder's other files", { call: (l) => read(`${l.results}/../transcript.jsonl`), expect: "asks" }],
  ["Read of a folder whose name only starts like it", { call: (l) => read(`${l.results}-evil/x.txt`), before: (l) => (mkdirSync(`${l.results}-evil`), writeFileSync(`${l.results}-evil/x.txt`, "x")), expect: "asks" }],
  ["Read through a symlink placed in the folder", { call: (l) => read(join(l.results, "link.txt")), before: (l) => symlinkSync(join(l.outside, "secret.txt"), join(l.results, "link.txt")), expect: "asks" }],
  // Grep does not follow a link below its root (ripgrep's default): the folder is searched, what
  // the link leads to is not.
  ["Grep of the folder with a symlink in it that leads out", { call: (l) => ({ type: "tool_use", id: "g", name: "Grep", input: { pattern: "needle", path: l.results, output_mode: "content" } }), before: (l) => symlinkSync(l.outside, join(l.results, "out")), expect: "runs", shows: /saved result needle/, hides: /secret needle/ }],
  [
    "Read when the folder was swapped for a symlink",
    {
      call: (l) => read(join(l.results, "secret.txt")),
      before: (l) => {
        mkdirSync(join(l.session, "gone"));
        renameSync(l.results, join(l.session, "gone", "tool-results"));
        symlinkSync(l.outside, l.results);
      },
      expect: "asks",
    },
  ],
  ["Write into the folder", { call: (l) => ({ type: "tool_use", id: "w", name: "Write", input: { file_path: join(l.results, "new.txt"), content: "x" } }), expect: "asks" }],
  ["a deny rule on the file still denies", { call: (l) => read(join(l.results, "r.txt")), deny: (l) => [`Read(/${l.results}/r.txt)`], expect: "denied by rule" }],
];

function read(file_path: string): ToolUseBlock {
  return { type: "tool_use", id: "r", name: "Read", input: { file_path } };
}

describe("the session's own tool-results folder", () => {
  it.each(cases)("%s", async (_name, c) => {
    await withTempDir(async (dir) => {
      const l = layout(dir);
      c.before?.(l);
      const session = createSession({ cwd: l.proj, sessionDir: l.session, tools: builtinTools(), permissionMode: "default", sandbox: false, deny: c.deny?.(l) });
      try {
        const [result] = await session.runTurn([c.call(l)]);
        const text = JSON.stringify(result!.content);
        if (c.expect === "runs") {
          expect(result!.is_error, text).toBeFalsy();
          if (c.shows) expect(text).toMatch(c.shows);
          if (c.hides) expect(text).not.toMatch(c.hides);
        } else {
          expect(result!.is_error, text).toBe(true);
          expect(text).toMatch(c.expect === "asks" ? /needs approval|cannot ask/ : /Denied by rule/);
          expect(text).not.toMatch(/needle/);
        }
      } finally {
        await session.close();
      }
    });
  });

  it("through runAgent: a result too large is saved, the hint's path is Read back without an approval", async () => {
    await withTempDir(async (dir) => {
      const l = layout(dir);
      const big = `${"line of a long output\n".repeat(3000)}the last line\n`;
      const bigTool = buildTool({ name: "Big", description: "A long output.", inputSchema: z.object({}), isReadOnly: () => true, maxResultSizeChars: 10_000, call: async () => ({ data: big }) });
      let asked = 0;
      const session = createSession({
        cwd: l.proj,
        sessionDir: l.session,
        tools: [...builtinTools(), bigTool],
        permissionMode: "default",
        sandbox: false,
        canUseTool: async () => {
          asked++;
          return { behavior: "deny", message: "no" };
        },
      });
      const requests: ModelRequest[] = [];
      const usage = { input_tokens: 1, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
      const provider = {
        name: "scripted",
        async *stream(request: ModelRequest): AsyncIterable<ModelEvent> {
          requests.push(request);
          yield { type: "message_start", id: `m${requests.length}`, model: "m", usage };
          if (requests.length === 1) {
            yield { type: "block", block: { type: "tool_use", id: "big1", name: "Big", input: {} } };
            yield { type: "message_end", stopReason: "tool_use", usage };
            return;
          }
          if (requests.length === 2) {
            const saved = /Full output saved to: (.+)\n/.exec(JSON.stringify(request.messages).replace(/\\n/g, "\n"))?.[1];
            yield { type: "block", block: { type: "tool_use", id: "read1", name: "Read", input: { file_path: saved ?? "(no path in the hint)", offset: 3000 } } };
            yield { type: "message_end", stopReason: "tool_use", usage };
            return;
          }
          yield { type: "block", block: { type: "text", text: "done" } };
          yield { type: "message_end", stopReason: "end_turn", usage };
        },
      };
      const results: Array<{ id: string; text: string; error: boolean }> = [];
      for await (const event of runAgent({ session, provider, model: "m", prompt: "go", sessionStart: "none", sessionEnd: false })) {
        if (event.type === "tool_result") results.push({ id: event.result.tool_use_id, text: JSON.stringify(event.result.content), error: event.result.is_error === true });
      }
      await session.close();
      expect(results[0]!.text).toContain(`Full output saved to: ${join(l.results, "big1.txt")}`);
      expect(results[1], JSON.stringify(results)).toMatchObject({ id: "read1", error: false });
      expect(results[1]!.text).toContain("the last line");
      expect(asked).toBe(0);
    });
  });
});
