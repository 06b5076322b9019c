import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { mkdir, readFile, realpath, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { toolUse, withTempDir } from "../../../test/helpers.js";
import { anthropicReply, startMockModelServer, type MockModelServer, type RecordedRequest } from "../../../test/mock-model-server.js";
import { runAgent } from "../../agent/run-agent.js";
import { AnthropicProvider } from "../../providers/anthropic.js";
import { createSession, type Session } from "../../session/session.js";
import { builtinTools } from "../index.js";

const gitEnv = { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" };
const git = (cwd: string, ...args: string[]): string => execFileSync("git", args, { cwd, env: gitEnv, encoding: "utf8" });

/** A session folder outside the repository (its files are not the checkout's work), removed after the file's tests. */
const sessionDirs: string[] = [];
function sessionDir(): string {
  const made = mkdtempSync(join(tmpdir(), "armature-worktree-session-"));
  sessionDirs.push(made);
  return made;
}
afterAll(() => {
  for (const made of sessionDirs) rmSync(made, { recursive: true, force: true });
});

/** A real repository with one commit, on branch master. */
async function repo(dir: string): Promise<string> {
  const root = await realpath(dir);
  git(root, "init", "-q", "-b", "master");
  await writeFile(join(root, "a.txt"), "alpha\n");
  git(root, "add", "-A");
  git(root, "commit", "-qm", "init");
  return root;
}

async function call(session: Session, name: string, input: Record<string, unknown>): Promise<{ text: string; isError: boolean }> {
  const [result] = await session.runTurn([toolUse(name, input)]);
  return { text: typeof result!.content === "string" ? result!.content : JSON.stringify(result!.content), isError: result!.is_error === true };
}

interface Recorded { name: string; input: Record<string, unknown>; content: string; isError: boolean }

/** What differs by design or by machine: armature's folder, generated names, commit ids, column padding. */
function normalize(text: string, dir: string): string {
  return text
    .replaceAll(dir, "$DIR")
    .replaceAll(".claude/worktrees", ".armature/worktrees")
    .replace(/worktrees\/[a-z]+-[a-z]+-[a-z]+/g, "worktrees/<generated>")
    .replace(/worktree-[a-z]+-[a-z]+-[a-z]+/g, "worktree-<generated>")
    .replace(/\b[0-9a-f]{7,40}\b/g, "<commit>")
    .replace(/ {2,}/g, " ");
}

/**
 * Recorded texts armature words differently on purpose: the reference's sentence repeats its own
 * tool description, and descriptions must be ours (scripts/prose-overlap.js). Same facts, is_error alike.
 */
const OUR_WORDS = new Map([
  [
    '<tool_use_error>InputValidationError: [\n  {\n    "code": "custom",\n    "message": "Invalid worktree name \\"bad name!\\": each \\"/\\"-separated segment must be non-empty and contain only letters, digits, dots, underscores, and dashes",\n    "path": [\n      "name"\n    ]\n  }\n]</tool_use_error>',
    '<tool_use_error>InputValidationError: [\n  {\n    "code": "custom",\n    "message": "Invalid worktree name \\"bad name!\\": split at \\"/\\", every part needs at least one character, and the characters allowed are letters, digits, \\".\\", \\"_\\" and \\"-\\" (a part may not be \\".\\", \\"..\\" or \\".git\\")",\n    "path": [\n      "name"\n    ]\n  }\n]</tool_use_error>',
  ],
]);

describe("EnterWorktree / ExitWorktree", () => {
  it("replays the reference's recorded calls (scenario g4) in a real repository with the same texts", async () => {
    const fixture = JSON.parse(await readFile(new URL("../../../test/fixtures/reference-worktree-texts.json", import.meta.url), "utf8")) as { calls: Recorded[] };
    await withTempDir(async (dir) => {
      const root = await repo(dir);
      const session = createSession({ cwd: root, tools: builtinTools(), permissionMode: "bypassPermissions", sessionDir: sessionDir() });
      const mismatches: string[] = [];
      try {
        for (const recorded of fixture.calls.filter((c) => c.name !== "Skill")) {
          const got = await call(session, recorded.name, recorded.input);
          const want = normalize(OUR_WORDS.get(recorded.content) ?? recorded.content, "$DIR");
          const have = normalize(got.text, root);
          if (have !== want || got.isError !== recorded.isError) mismatches.push(`${recorded.name} ${JSON.stringify(recorded.input)}\n  want ${recorded.isError}: ${want}\n  got  ${got.isError}: ${have}`);
        }
      } finally {
        await session.close();
      }
      expect(mismatches).toEqual([]);
    });
  });
});

describe("worktree effects", () => {
  const sessionIn = (root: string, mode: "bypassPermissions" | "default" = "bypassPermissions") =>
    createSession({ cwd: root, tools: builtinTools(), permissionMode: mode, sessionDir: sessionDir() });

  it("keep leaves the checkout and branch; remove of a clean one deletes both; work is never removed unasked", async () => {
    await withTempDir(async (dir) => {
      const root = await repo(dir);
      const session = sessionIn(root);
      try {
        const wt = join(root, ".armature", "worktrees", "kept");
        expect((await call(session, "EnterWorktree", { name: "kept" })).isError).toBe(false);
        expect(session.context.workspace).toEqual({ projectDir: wt, cwd: wt });
        // The tools work in the worktree: a relative write lands there, not in the user's checkout.
        await call(session, "Bash", { command: "echo x > made.txt && git add made.txt && git commit -qm work" });
        expect(existsSync(join(wt, "made.txt"))).toBe(true);
        expect(existsSync(join(root, "made.txt"))).toBe(false);
        // A commit is work too: remove refuses without discard_changes.
        const refused = await call(session, "ExitWorktree", { action: "remove" });
        expect(refused).toEqual({ isError: true, text: `<tool_use_error>Worktree has 1 commit not on the branch it started from. Removing will discard this work permanently. Confirm with the user, then re-invoke with discard_changes: true — or use action: "keep" to preserve the worktree.</tool_use_error>` });
        expect(existsSync(join(wt, "made.txt"))).toBe(true);
        expect((await call(session, "ExitWorktree", { action: "keep" })).text).toBe(`Exited worktree. Your work is preserved at “${wt}” on branch “worktree-kept”. Session is now back in “${root}”.`);
        expect(session.context.workspace).toEqual({ projectDir: root, cwd: root });
        expect(git(root, "branch", "--list", "worktree-kept")).toContain("worktree-kept");
        expect(git(root, "worktree", "list")).not.toContain("locked");

        expect((await call(session, "EnterWorktree", { name: "clean" })).isError).toBe(false);
        expect((await call(session, "ExitWorktree", { action: "remove" })).isError).toBe(false);
        expect(existsSync(join(root, ".armature", "worktrees", "clean"))).toBe(false);
        expect(git(root, "branch", "--list", "worktree-clean")).toBe("");
        // Entering an existing worktree by path, and leaving it: it stays whatever the action.
        expect((await call(session, "EnterWorktree", { path: wt })).text).toBe(`Entered worktree at “${wt}” on branch “worktree-kept”. The session is now working in the worktree. Use ExitWorktree to leave it.`);
        expect((await call(session, "ExitWorktree", { action: "remove", discard_changes: true })).isError).toBe(false);
        expect(existsSync(join(wt, "made.txt"))).toBe(true);
      } finally {
        await session.close();
      }
    });
  });

  it("on close an unchanged worktree is removed and one with work stays", async () => {
    await withTempDir(async (dir) => {
      const root = await repo(dir);
      for (const [name, change] of [["idle", ""], ["busy", "echo y > new.txt"]] as const) {
        const session = sessionIn(root);
        await call(session, "EnterWorktree", { name });
        if (change) await call(session, "Bash", { command: change });
        await session.close();
      }
      expect(existsSync(join(root, ".armature", "worktrees", "idle"))).toBe(false);
      expect(git(root, "branch", "--list", "worktree-idle")).toBe("");
      expect(existsSync(join(root, ".armature", "worktrees", "busy", "new.txt"))).toBe(true);
    });
  });

  const attacks: Array<[string, string]> = [
    ["../escape", "a segment that leaves the worktrees folder"],
    ["a/../../escape", "a nested .."],
    [".git", "a worktree named .git"],
    ["x/.GIT", "a .git segment in any case"],
    ["", "an empty name"],
    ["a//b", "an empty segment"],
    ["bad name!", "spaces and punctuation"],
  ];
  for (const [name, why] of attacks) {
    it(`refuses the name ${JSON.stringify(name)} (${why}) and creates nothing`, async () => {
      await withTempDir(async (dir) => {
        const root = await repo(dir);
        const session = sessionIn(root);
        try {
          const got = await call(session, "EnterWorktree", { name });
          expect(got.isError).toBe(true);
          expect(got.text).toContain("InputValidationError");
          expect(git(root, "worktree", "list").trim().split("\n")).toHaveLength(1);
          expect(existsSync(join(root, ".armature"))).toBe(false);
          expect(existsSync(join(dir, "escape"))).toBe(false);
        } finally {
          await session.close();
        }
      });
    });
  }

  it("creating a worktree runs none of the repository's hooks or filter drivers", async () => {
    await withTempDir(async (dir) => {
      const root = await repo(dir);
      const marker = join(dir, "..", `${root.split("/").pop()}-ran`);
      await writeFile(join(root, ".git", "hooks", "post-checkout"), `#!/bin/sh\necho hook > '${marker}-hook'\n`, { mode: 0o755 });
      git(root, "config", "filter.evil.smudge", `sh -c 'echo smudge > ${marker}-smudge; cat'`);
      git(root, "config", "filter.evil.process", `sh -c 'echo process > ${marker}-process'`);
      await writeFile(join(root, ".gitattributes"), "*.txt filter=evil\n");
      git(root, "-c", "filter.evil.clean=cat", "-c", "filter.evil.process=", "add", "-A");
      git(root, "-c", "filter.evil.process=", "-c", "core.hooksPath=/dev/null", "commit", "-qm", "attributes");
      const session = sessionIn(root);
      try {
        expect((await call(session, "EnterWorktree", { name: "safe" })).isError).toBe(false);
        expect(await readFile(join(root, ".armature", "worktrees", "safe", "a.txt"), "utf8")).toBe("alpha\n");
      } finally {
        await session.close();
      }
      for (const what of ["hook", "smudge", "process"]) expect(existsSync(`${marker}-${what}`)).toBe(false);
    });
  });

  it("outside a repository, without a session, and in default mode: errors that say why, nothing made", async () => {
    await withTempDir(async (dir) => {
      const plain = await realpath(dir);
      await mkdir(join(plain, "sub"));
      const session = sessionIn(join(plain, "sub"));
      try {
        expect(await call(session, "EnterWorktree", { name: "x" })).toEqual({
          isError: true,
          text: 'Cannot create a worktree: not in a git repository. EnterWorktree and isolation: "worktree" work inside a git repository only.',
        });
        expect(await call(session, "ExitWorktree", { action: "keep" })).toEqual({
          isError: true,
          text: "<tool_use_error>No-op: this session is not in a worktree it entered with EnterWorktree, so there is nothing to exit. Worktrees made by hand or by an earlier session are never touched by ExitWorktree. Nothing was changed on disk.</tool_use_error>",
        });
      } finally {
        await session.close();
      }
      const root = await repo(join(plain, "sub"));
      const asking = sessionIn(root, "default");
      try {
        const denied = await call(asking, "EnterWorktree", { name: "x" });
        expect(denied.isError).toBe(true);
        expect(denied.text).toContain("Permission to use EnterWorktree was denied");
        expect(existsSync(join(root, ".armature"))).toBe(false);
      } finally {
        await asking.close();
      }
    });
  });
});

describe('Agent isolation: "worktree" and effort', () => {
  let server: MockModelServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function runParent(root: string, agentInput: Record<string, unknown>, childCommand: string | undefined): Promise<{ result: string; requests: RecordedRequest[] }> {
    server = await startMockModelServer([
      anthropicReply([{ type: "tool_use", id: "toolu_a", name: "Agent", input: { description: "Work apart", prompt: "change things", ...agentInput } }]),
      ...(childCommand ? [anthropicReply([{ type: "tool_use", id: "toolu_c", name: "Bash", input: { command: childCommand, description: "Change" } }])] : []),
      anthropicReply([{ type: "text", text: "child report" }]),
      anthropicReply([{ type: "text", text: "done" }]),
    ]);
    const session = createSession({ cwd: root, tools: builtinTools({ subagents: true }), permissionMode: "bypassPermissions", sessionDir: sessionDir() });
    try {
      for await (const event of runAgent({ session, provider: new AnthropicProvider({ baseURL: server.url, apiKey: "k" }), model: "m", prompt: "delegate" })) void event;
    } finally {
      await session.close();
    }
    const last = server.requests.at(-1)!.body.messages as Array<{ content: Array<{ type: string; content?: string | Array<{ text: string }> }> }>;
    const content = last.at(-1)!.content.find((b) => b.type === "tool_result")!.content!;
    return { result: typeof content === "string" ? content : content.map((b) => b.text).join(""), requests: server.requests };
  }

  it("the sub-agent changes files in its own worktree; the result says where; the user's checkout is untouched", async () => {
    await withTempDir(async (dir) => {
      const root = await repo(dir);
      const { result, requests } = await runParent(root, { isolation: "worktree" }, "echo x > made.txt; pwd");
      const match = /worktree “([^”]+)” on branch “(worktree-agent-a[0-9a-f]+)”/.exec(result);
      expect(match, result).not.toBeNull();
      const [, path, branch] = match!;
      expect(path!.startsWith(join(root, ".armature", "worktrees", "agent-a"))).toBe(true);
      expect(await readFile(join(path!, "made.txt"), "utf8")).toBe("x\n");
      expect(existsSync(join(root, "made.txt"))).toBe(false);
      expect(git(root, "branch", "--list", branch!)).toContain(branch);
      // The child was told it works there, and its shell ran there.
      const childSystem = JSON.stringify(requests[1]!.body.system);
      expect(childSystem).toContain(`Working directory: ${path}`);
      expect(JSON.stringify(requests[2]!.body.messages)).toContain(path!);
    });
  });

  it("a worktree the sub-agent left unchanged is removed with its branch", async () => {
    await withTempDir(async (dir) => {
      const root = await repo(dir);
      const { result } = await runParent(root, { isolation: "worktree" }, undefined);
      expect(result).toContain("The sub-agent worked in a git worktree and left it unchanged; the worktree and its branch “worktree-agent-a");
      expect(git(root, "worktree", "list").trim().split("\n")).toHaveLength(1);
      expect(git(root, "branch", "--list", "worktree-agent-*")).toBe("");
    });
  });

  it('isolation "remote" is refused, and "worktree" outside a repository says why; effort reaches the sub-agent\'s requests only', async () => {
    await withTempDir(async (dir) => {
      const plain = await realpath(dir);
      const remote = await runParent(plain, { isolation: "remote" }, undefined);
      expect(remote.result).toContain('isolation "remote" is not available');
      const outside = await runParent(plain, { isolation: "worktree" }, undefined);
      expect(outside.result).toContain("Cannot create a worktree: not in a git repository.");
      const { requests } = await runParent(plain, { effort: "high" }, undefined);
      expect(requests[0]!.body.output_config).toBeUndefined();
      expect(requests[1]!.body.output_config).toEqual({ effort: "high" });
    });
  });
});
