import { describe, expect, it } from "vitest";
import { z } from "zod";
import { buildTool } from "../tool/build-tool.js";
import { createSession } from "../session/session.js";
import { noopTool, toolUse, withTempDir } from "../../test/helpers.js";
import type { Tool } from "../tool/types.js";

const echo = buildTool({
  name: "Echo",
  aliases: ["Say"],
  legacyNames: ["OldEcho"],
  description: "Echoes text.",
  inputSchema: z.object({ text: z.string(), times: z.number().int().optional() }),
  internalInputSchema: z.object({ _secret: z.string().optional() }),
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  call: async (input) => ({ data: input.text.repeat(input.times ?? 1) }),
});

function session(tools: Tool[], extra: Partial<Parameters<typeof createSession>[0]> = {}) {
  return createSession({ cwd: process.cwd(), tools, ...extra });
}

describe("pipeline failures become is_error results", () => {
  it("unknown tool", async () => {
    const s = session([echo]);
    const [r] = await s.runTurn([toolUse("Nope", {}, "a")]);
    expect(r).toEqual({ type: "tool_result", tool_use_id: "a", is_error: true, content: "<tool_use_error>Error: No such tool available: Nope</tool_use_error>" });
    await s.close();
  });

  it("missing, unexpected and mistyped fields, one line each", async () => {
    const s = session([echo]);
    const [r] = await s.runTurn([toolUse("Echo", { times: "3", extra: 1 }, "a")]);
    expect(r!.is_error).toBe(true);
    expect(r!.content).toBe(
      "<tool_use_error>InputValidationError: Echo failed due to the following issues:\n" +
        "The required parameter `text` is missing\n" +
        "The parameter `times` type is expected as `number` but provided as `string`\n" +
        "An unexpected parameter `extra` was provided</tool_use_error>",
    );
    await s.close();
  });

  it("an input that is not an object", async () => {
    const s = session([echo]);
    const [r] = await s.runTurn([toolUse("Echo", "hello", "a")]);
    expect(r!.content).toContain("The input must be a JSON object, but a string was provided");
    await s.close();
  });

  it("a hidden internal field sent by the model is rejected", async () => {
    const s = session([echo]);
    const [r] = await s.runTurn([toolUse("Echo", { text: "x", _secret: "y" }, "a")]);
    expect(r!.content).toContain("An unexpected parameter `_secret` was provided");
    await s.close();
  });

  it("a repeated tool_use id", async () => {
    const s = session([echo]);
    const rs = await s.runTurn([toolUse("Echo", { text: "x" }, "a"), toolUse("Echo", { text: "y" }, "a")]);
    expect(rs[0]).toMatchObject({ content: "x" });
    expect(rs[1]!.is_error).toBe(true);
    expect(rs[1]!.content).toContain("Duplicate tool_use id a");
    await s.close();
  });

  it("a tool that throws is classified and never reaches the caller", async () => {
    const thrower = buildTool({
      name: "Thrower",
      description: "Throws.",
      inputSchema: z.object({}),
      isReadOnly: () => true,
      call: async () => {
        const err = new Error("ENOENT: no such file or directory, open '/nope'") as NodeJS.ErrnoException;
        err.code = "ENOENT";
        throw err;
      },
    });
    const s = session([thrower]);
    const [r] = await s.runTurn([toolUse("Thrower", {}, "a")]);
    expect(r).toMatchObject({ is_error: true, content: "ENOENT: no such file or directory, open '/nope'" });
    await s.close();
  });

  it("a JavaScript tool may return its result directly, or throw before returning", async () => {
    // Types say call returns a promise; plain JavaScript callers are not held to them.
    const direct = { ...echo, name: "Direct", call: ((input: { text: string }) => ({ data: input.text })) as unknown as Tool["call"] };
    const early = { ...echo, name: "Early", call: (() => { throw new TypeError("bad state"); }) as unknown as Tool["call"] };
    const s = session([direct, early]);
    const [a, b] = await s.runTurn([toolUse("Direct", { text: "hi" }, "a"), toolUse("Early", { text: "hi" }, "b")]);
    expect(a).toEqual({ type: "tool_result", tool_use_id: "a", content: "hi" });
    expect(b).toMatchObject({ is_error: true, content: "bad state" });
    await s.close();
  });

  it("a tool that ignores the abort signal is abandoned after the grace period", async () => {
    const stubborn = buildTool({
      name: "Stubborn",
      description: "Never stops.",
      inputSchema: z.object({}),
      isReadOnly: () => true,
      call: () => new Promise<never>(() => {}),
    });
    const s = session([stubborn], { abandonGraceMs: 50 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const [r] = await s.runTurn([toolUse("Stubborn", {}, "a")], { signal: controller.signal });
    expect(r!.is_error).toBe(true);
    expect(r!.content).toContain("Stubborn did not stop within 50 ms of the abort and was abandoned");
    await s.close();
  });

  it("aliases and legacy names find the tool", async () => {
    const s = session([echo]);
    const rs = await s.runTurn([toolUse("Say", { text: "a" }, "1"), toolUse("OldEcho", { text: "b" }, "2")]);
    expect(rs.map((r) => r.content)).toEqual(["a", "b"]);
    await s.close();
  });

  it("validateInput failures carry the tool's message", async () => {
    const picky = buildTool({
      name: "Picky",
      description: "Refuses.",
      inputSchema: z.object({ n: z.number() }),
      validateInput: (input) => (input.n > 0 ? { result: true } : { result: false, message: "n must be positive; pass n=1 or more", errorCode: 1 }),
      isReadOnly: () => true,
      call: async () => ({ data: "fine" }),
    });
    const s = session([picky]);
    const [r] = await s.runTurn([toolUse("Picky", { n: 0 }, "a")]);
    expect(r).toMatchObject({ is_error: true, content: "<tool_use_error>n must be positive; pass n=1 or more</tool_use_error>" });
    await s.close();
  });
});

describe("permissions in the core", () => {
  const writer = buildTool({
    name: "Writer",
    description: "Changes things.",
    inputSchema: z.object({}),
    call: async () => ({ data: "written" }),
  });

  it("a call that asks is denied when nobody can approve, naming the mode", async () => {
    const s = session([writer]);
    const [r] = await s.runTurn([toolUse("Writer", {}, "a")]);
    expect(r!.is_error).toBe(true);
    expect(r!.content).toContain("Writer needs approval in default mode");
    expect(r!.content).toContain("cannot ask for approval");
    await s.close();
  });

  it("allow, ask and deny rules by tool name; deny beats allow", async () => {
    const allowed = session([writer], { allow: ["Writer"] });
    expect((await allowed.runTurn([toolUse("Writer", {}, "a")]))[0]!.content).toBe("written");
    const denied = session([writer], { allow: ["Writer"], deny: ["Writer"] });
    const [r] = await denied.runTurn([toolUse("Writer", {}, "a")]);
    expect(r!.content).toContain("Denied by rule Writer");
    const asked = session([noopTool], { ask: ["Noop"] });
    expect((await asked.runTurn([toolUse("Noop", {}, "a")]))[0]!.content).toContain("Approval required by rule Noop");
    await Promise.all([allowed.close(), denied.close(), asked.close()]);
  });

  it("the approver answers asks", async () => {
    const s = session([writer], { canUseTool: async () => ({ behavior: "allow" }) });
    expect((await s.runTurn([toolUse("Writer", {}, "a")]))[0]!.content).toBe("written");
    const n = session([writer], { canUseTool: async () => ({ behavior: "deny", message: "not now" }) });
    expect((await n.runTurn([toolUse("Writer", {}, "a")]))[0]!.content).toContain("not now");
    await Promise.all([s.close(), n.close()]);
  });

  it("plan mode denies writes and allows reads; bypassPermissions allows", async () => {
    const plan = session([writer, noopTool], { permissionMode: "plan" });
    const rs = await plan.runTurn([toolUse("Writer", {}, "a"), toolUse("Noop", {}, "b")]);
    expect(rs[0]!.content).toContain("plan mode is read-only");
    expect(rs[1]!.content).toBe("ok");
    const bypass = session([writer], { permissionMode: "bypassPermissions" });
    expect((await bypass.runTurn([toolUse("Writer", {}, "a")]))[0]!.content).toBe("written");
    await Promise.all([plan.close(), bypass.close()]);
  });

  it("an invalid rule is an error, not a no-op", () => {
    expect(() => session([writer], { deny: ["Bash(unclosed"] })).toThrow(/invalid permission rule/);
  });
});

describe("result budget", () => {
  it("persists an oversized result with a preview", async () => {
    await withTempDir(async (dir) => {
      const big = buildTool({
        name: "Big",
        description: "Big output.",
        inputSchema: z.object({}),
        isReadOnly: () => true,
        maxResultSizeChars: 1000,
        call: async () => ({ data: "line\n".repeat(1000) }),
      });
      const s = session([big], { sessionDir: dir });
      const [r] = await s.runTurn([toolUse("Big", {}, "toolu_1")]);
      const text = r!.content as string;
      expect(text).toMatch(/^<persisted-output>\nOutput too large \(4\.9KB\)\. Full output saved to: .*tool-results\/toolu_1\.txt/);
      expect(text).toContain("Preview (first 2KB):\nline\n");
      expect(text.length).toBeLessThan(2600);
      const { readFile } = await import("node:fs/promises");
      expect(await readFile(`${dir}/tool-results/toolu_1.txt`, "utf8")).toBe("line\n".repeat(1000));
      await s.close();
    });
  });
});

describe("turn budget", () => {
  it("persists results that would take the turn over its aggregate budget", async () => {
    await withTempDir(async (dir) => {
      const medium = buildTool({
        name: "Medium", description: "", inputSchema: z.object({ c: z.string() }), isReadOnly: () => true, isConcurrencySafe: () => true,
        call: async (i) => ({ data: i.c.repeat(40_000) }),
      });
      const s = session([medium], { sessionDir: dir, turnBudgetChars: 100_000 });
      const rs = await s.runTurn(["a", "b", "c", "d"].map((c) => toolUse("Medium", { c }, `id_${c}`)));
      expect(rs.map((r) => (r.content as string).startsWith("<persisted-output>"))).toEqual([false, false, true, true]);
      await s.close();
    });
  });
});

describe("rewritten inputs are checked again", () => {
  const shell = buildTool({
    name: "Shell",
    description: "Writes a file named by a word.",
    inputSchema: z.object({ word: z.string() }),
    permissionSubject: (i, ctx) => ({ kind: "file", access: "write", paths: [`${ctx.workspace.cwd}/${i.word}`] }),
    call: async (i) => ({ data: `ran ${i.word}` }),
  });

  it("an approver's rewrite that a deny rule names is denied", async () => {
    let asked = 0;
    const s = session([shell], {
      deny: ["Edit(./secret.txt)"],
      canUseTool: async () => (asked++, { behavior: "allow", updatedInput: { word: "secret.txt" } }),
    });
    const [r] = await s.runTurn([toolUse("Shell", { word: "notes.txt" }, "a")]);
    expect(asked).toBe(1);
    expect(r!.is_error).toBe(true);
    expect(r!.content).toContain("The rewritten input is not allowed as rewritten: Denied by rule Edit(./secret.txt)");
    await s.close();
  });

  it("an approver's rewrite that nothing objects to runs with the new input", async () => {
    const s = session([shell], { canUseTool: async () => ({ behavior: "allow", updatedInput: { word: "other" } }) });
    expect((await s.runTurn([toolUse("Shell", { word: "x" }, "a")]))[0]!.content).toBe("ran other");
    await s.close();
  });

  it("an invalid rewrite is an is_error result", async () => {
    const s = session([shell], { canUseTool: async () => ({ behavior: "allow", updatedInput: { word: 3 } }) });
    const [r] = await s.runTurn([toolUse("Shell", { word: "x" }, "a")]);
    expect(r!.is_error).toBe(true);
    expect(r!.content).toContain("The parameter `word` type is expected as `string` but provided as `number`");
    await s.close();
  });
});
