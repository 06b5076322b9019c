import { existsSync } from "node:fs";
import { mkdir, realpath, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { anthropicReply, startMockModelServer, type MockModelServer, type RecordedRequest } from "../../test/mock-model-server.js";
import { captureIO, toolUse, useTestApiKey, withTempDir } from "../../test/helpers.js";
import { runAgent } from "../agent/run-agent.js";
import { main } from "../cli/main.js";
import { AnthropicProvider } from "../providers/anthropic.js";
import { createSession } from "../session/session.js";
import { trustProject } from "../settings/trust.js";
import { builtinTools } from "../tools/index.js";
import { loadSkills, parseSkillFile, skillListing, toolList } from "./load-skills.js";

let server: MockModelServer | undefined;
useTestApiKey();
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function skillFolder(root: string, name: string, frontMatter: string, body: string): Promise<string> {
  const dir = join(root, name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "SKILL.md"), `---\n${frontMatter}\n---\n${body}`);
  return dir;
}

/** A project with a skill in each place a skill can come from, and a user folder of its own. */
async function skillPlaces(dir: string, userDir = join(dir, "user-config")): Promise<{ project: string; userDir: string; home: string }> {
  const project = join(dir, "project");
  const home = join(dir, "home");
  await skillFolder(join(project, ".armature", "skills"), "proj", "name: proj\ndescription: The project's own skill.", "Project skill for $ARGUMENTS.\n");
  await skillFolder(join(project, ".claude", "skills"), "hello", "name: hello\ndescription: Greets someone by name. Use when asked to greet.", "# Hello skill\n\nSay hello to $ARGUMENTS and then stop.\n");
  await skillFolder(join(userDir, "skills"), "mine", "name: mine\ndescription: The user's skill.\nallowed-tools: Bash(touch granted.txt), Read", "User skill.\n");
  await mkdir(home, { recursive: true });
  return { project, userDir, home };
}

type Json = Record<string, unknown>;
const messagesOf = (r: RecordedRequest) => r.body.messages as Array<{ role: string; content: Json[] | string }>;
/** The last message's blocks without the cache breakpoint (the last block carries it, as the reference's does). */
const lastBlocks = (r: RecordedRequest): Json[] => (messagesOf(r).at(-1)!.content as Json[]).map(({ cache_control: _breakpoint, ...b }) => b);
const systemText = (r: RecordedRequest): string => {
  const system = r.body.system as string | Array<{ text: string }>;
  return typeof system === "string" ? system : system.map((b) => b.text).join("\n");
};

describe("allowed-tools parsing", () => {
  it("splits at commas and spaces outside parentheses; a YAML list stays as written", async () => {
    expect(toolList("Bash(git status *), Read  Grep,Glob")).toEqual(["Bash(git status *)", "Read", "Grep", "Glob"]);
    expect(toolList(["Bash(git log *)", "Read"])).toEqual(["Bash(git log *)", "Read"]);
    expect(toolList(undefined)).toEqual([]);
    expect((await parseSkillFile("---\nname: x\nallowed-tools:\n  - Bash(npm test)\n  - Read\n---\nBody"))?.fields["allowed-tools"]).toEqual(["Bash(npm test)", "Read"]);
  });
});

describe("SKILL.md front matter, read as YAML", () => {
  it("a folded description (`>-`) reaches the listing as its text, not as `>-`", async () => {
    await withTempDir(async (dir) => {
      const userDir = join(dir, "user");
      await mkdir(join(userDir, "skills", "release"), { recursive: true });
      await writeFile(join(userDir, "skills", "release", "SKILL.md"), "---\nname: release\ndescription: >-\n  Cuts a release:\n  tags, notes, publish.\n---\n# Release\n");
      const [skill] = await loadSkills({ projectDir: join(dir, "p"), projectTrusted: false, userDir, home: join(dir, "home") });
      expect(skill).toMatchObject({ name: "release", description: "Cuts a release: tags, notes, publish.", body: "# Release\n" });
      expect(skillListing([skill!])).toContain("- release: Cuts a release: tags, notes, publish.");
    });
  });

  it("quoting, comments, literal blocks, numbers, flow lists; a plain value with `: ` stays text", async () => {
    const parsed = await parseSkillFile(
      "---\nname: 'deploy'   # shown as /deploy\ndescription: |\n  Deploys.\n  Carefully.\nversion: 2\nallowed-tools: [Bash(npm run deploy *), Read]\n---\nBody",
    );
    expect(parsed).toEqual({ fields: { name: "deploy", description: "Deploys.\nCarefully.\n", version: "2", "allowed-tools": ["Bash(npm run deploy *)", "Read"] }, body: "Body" });
    expect((await parseSkillFile("---\nname: x\ndescription: Use when: the build breaks # not a comment?\n---\n"))?.fields.description).toBe("Use when: the build breaks # not a comment?");
    expect(await parseSkillFile("no front matter")).toBeUndefined();
    expect(await parseSkillFile("---\n---\nOnly a body")).toEqual({ fields: {}, body: "Only a body" });
  });

  it("a SKILL.md whose front matter is not YAML is skipped, the others load", async () => {
    await withTempDir(async (dir) => {
      const userDir = join(dir, "user");
      await mkdir(join(userDir, "skills", "broken"), { recursive: true });
      await mkdir(join(userDir, "skills", "fine"), { recursive: true });
      await writeFile(join(userDir, "skills", "broken", "SKILL.md"), "---\nname: broken\ndescription: [never closed\n---\n");
      await writeFile(join(userDir, "skills", "fine", "SKILL.md"), "---\nname: fine\ndescription: ok\n---\n");
      await expect(parseSkillFile("---\nname: broken\ndescription: [never closed\n---\n")).rejects.toThrow(/not valid YAML/);
      expect((await loadSkills({ projectDir: join(dir, "p"), projectTrusted: false, userDir, home: join(dir, "home") })).map((s) => s.name)).toEqual(["fine"]);
    });
  });
});

describe("skill sources and the trust gate", () => {
  it("the user's folder always; the project's only once trusted; .claude/skills only with claude", async () => {
    await withTempDir(async (dir) => {
      const { project, userDir, home } = await skillPlaces(dir);
      const names = async (projectTrusted: boolean, claude: boolean) => (await loadSkills({ projectDir: project, projectTrusted, claude, userDir, home })).map((s) => `${s.name}:${s.source}`);
      expect(await names(false, true)).toEqual(["mine:user"]);
      expect(await names(true, false)).toEqual(["proj:project", "mine:user"]);
      expect(await names(true, true)).toEqual(["proj:project", "hello:claude-project", "mine:user"]);
    });
  });

  it("ARMATURE_CONFIG_DIR is the user's folder when none is given", async () => {
    await withTempDir(async (dir) => {
      const { project, home } = await skillPlaces(dir);
      const saved = process.env.ARMATURE_CONFIG_DIR;
      process.env.ARMATURE_CONFIG_DIR = join(dir, "config-dir");
      try {
        await skillFolder(join(dir, "config-dir", "skills"), "env-skill", "description: From the config dir.", "Body.\n");
        const skills = await loadSkills({ projectDir: project, projectTrusted: false, home });
        expect(skills.map((s) => s.name)).toEqual(["env-skill"]);
      } finally {
        process.env.ARMATURE_CONFIG_DIR = saved;
      }
    });
  });
});

describe("armature exec: the Skill tool", () => {
  it("an untrusted project's skills are not offered; once trusted they load, with their instructions as a message line", async () => {
    await withTempDir(async (dir) => {
      const { project } = await skillPlaces(dir, process.env.ARMATURE_CONFIG_DIR!);
      const turn = JSON.stringify([toolUse("Skill", { skill: "proj", args: "the build" }, "toolu_1")]);
      const lines = (io: { out: string }) => io.out.trim().split("\n").map((l) => JSON.parse(l) as Json);
      // The user's own skill makes the tool exist; the untrusted project's is not among its skills.
      const untrusted = captureIO(`${turn}\n`);
      expect(await main(["exec", "--cwd", project], untrusted)).toBe(0);
      expect(lines(untrusted)).toHaveLength(1);
      expect(lines(untrusted)[0]).toMatchObject({ role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", is_error: true }] });
      expect(JSON.stringify(lines(untrusted)[0])).toContain("Unknown skill: proj");

      await trustProject(project);
      const trusted = captureIO(`${turn}\n`);
      expect(await main(["exec", "--cwd", project], trusted)).toBe(0);
      const [message, results] = lines(trusted);
      expect(message).toEqual({
        type: "message",
        role: "user",
        content: [{ type: "text", text: `Base directory for this skill: ${join(project, ".armature", "skills", "proj")}\n\nProject skill for the build.\n` }],
      });
      expect(results).toEqual({ role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "Launching skill: proj" }] });
    });
  });
});

describe("armature agent: skills listed, loaded and narrowing the turn", () => {
  it("the listing names each skill; Skill loads the instructions into the results message; a second call says it is a re-invocation", async () => {
    await withTempDir(async (dir) => {
      const { project } = await skillPlaces(dir, process.env.ARMATURE_CONFIG_DIR!);
      await trustProject(project);
      server = await startMockModelServer([
        anthropicReply([{ type: "tool_use", id: "toolu_1", name: "Skill", input: { skill: "hello", args: "world" } }]),
        anthropicReply([{ type: "tool_use", id: "toolu_2", name: "Skill", input: { skill: "/hello" } }]),
        anthropicReply([{ type: "text", text: "Hello, world." }]),
      ]);
      const io = captureIO();
      const code = await main(["agent", "-p", "greet the world", "--base-url", server.url, "--model", "claude-mock", "--cwd", project, "--settings-from", "claude"], io);
      expect(io.err).toBe("");
      expect(code).toBe(0);
      const [first, second, third] = server.requests;
      expect(systemText(first!)).toContain("The following skills are available for use with the Skill tool:\n\n- proj: The project's own skill.\n- hello: Greets someone by name. Use when asked to greet.\n- mine: The user's skill.");
      // Progressive disclosure: the instructions are not in the prompt until the skill is used.
      expect(systemText(first!)).not.toContain("Say hello to");
      expect((first!.body.tools as Array<{ name: string }>).map((t) => t.name)).toContain("Skill");
      const base = join(project, ".claude", "skills", "hello");
      expect(lastBlocks(second!)).toEqual([
        { type: "tool_result", tool_use_id: "toolu_1", content: "Launching skill: hello" },
        { type: "text", text: `Base directory for this skill: ${base}\n\n# Hello skill\n\nSay hello to world and then stop.\n` },
      ]);
      expect(lastBlocks(third!)).toEqual([
        { type: "tool_result", tool_use_id: "toolu_2", content: "Launching skill: hello" },
        { type: "text", text: "(Re-invocation of /hello — the skill instructions were previously loaded; the arguments or dynamic output below are new.)\n" },
        { type: "text", text: `Base directory for this skill: ${base}\n\n# Hello skill\n\nSay hello to  and then stop.\n` },
      ]);
    });
  });

  it("allowed-tools: from the Skill call on, a listed call runs without approval; an unlisted one is still refused (-p cannot ask)", async () => {
    await withTempDir(async (dir) => {
      const { project } = await skillPlaces(dir, process.env.ARMATURE_CONFIG_DIR!);
      const touch = (id: string, file: string) => ({ type: "tool_use" as const, id, name: "Bash", input: { command: `touch ${file}`, description: "Touch" } });
      server = await startMockModelServer([
        anthropicReply([touch("toolu_0", "granted.txt")]),
        anthropicReply([{ type: "tool_use", id: "toolu_1", name: "Skill", input: { skill: "mine" } }]),
        anthropicReply([touch("toolu_2", "granted.txt"), touch("toolu_3", "other.txt")]),
        anthropicReply([{ type: "text", text: "done" }]),
      ]);
      const io = captureIO();
      const code = await main(["agent", "-p", "use mine", "--base-url", server.url, "--model", "claude-mock", "--cwd", project, "--output-format", "json"], io);
      expect(code).toBe(0);
      const [before] = lastBlocks(server.requests[1]!);
      expect(before).toMatchObject({ tool_use_id: "toolu_0", is_error: true });
      const [granted, other] = lastBlocks(server.requests[3]!);
      expect(granted).toMatchObject({ tool_use_id: "toolu_2" });
      expect(granted!.is_error).toBeUndefined();
      expect(other).toMatchObject({ tool_use_id: "toolu_3", is_error: true });
      expect(existsSync(join(project, "granted.txt"))).toBe(true);
      expect(existsSync(join(project, "other.txt"))).toBe(false);
    });
  });
});

describe("runAgent: the grant ends with the turn; sub-agents get the Skill tool and the listing", () => {
  it("the next prompt's calls are decided as before the skill", async () => {
    await withTempDir(async (dir) => {
      const { project, userDir, home } = await skillPlaces(dir);
      const skills = await loadSkills({ projectDir: project, projectTrusted: false, userDir, home });
      server = await startMockModelServer([
        anthropicReply([{ type: "tool_use", id: "toolu_1", name: "Skill", input: { skill: "mine" } }]),
        anthropicReply([{ type: "tool_use", id: "toolu_2", name: "Bash", input: { command: "touch granted.txt", description: "one" } }]),
        anthropicReply([{ type: "text", text: "made" }]),
        anthropicReply([{ type: "tool_use", id: "toolu_3", name: "Bash", input: { command: "rm granted.txt; touch granted.txt", description: "two" } }]),
        anthropicReply([{ type: "text", text: "refused" }]),
      ]);
      const session = createSession({ cwd: project, tools: builtinTools({ skills: { skills } }), sessionDir: join(dir, "session") });
      const provider = new AnthropicProvider({ baseURL: server.url, apiKey: "k" });
      try {
        for (const prompt of ["with the skill", "after it"]) {
          for await (const event of runAgent({ session, provider, model: "m", prompt })) void event;
        }
      } finally {
        await session.close();
      }
      expect(existsSync(join(project, "granted.txt"))).toBe(true);
      expect(session.context.permissionContext.skill).toBeUndefined();
      expect(await session.checkPermission(toolUse("Bash", { command: "touch granted.txt" }))).toMatchObject({ behavior: "ask" });
      const results = lastBlocks(server.requests[4]!);
      expect(results[0]).toMatchObject({ tool_use_id: "toolu_3", is_error: true });
    });
  });

  it("an Explore sub-agent has Skill, and its system prompt lists the skills", async () => {
    await withTempDir(async (dir) => {
      const { project, userDir, home } = await skillPlaces(dir);
      const skills = await loadSkills({ projectDir: project, projectTrusted: false, userDir, home });
      server = await startMockModelServer([
        anthropicReply([{ type: "tool_use", id: "toolu_1", name: "Agent", input: { description: "Look around", prompt: "look", subagent_type: "Explore", run_in_background: false } }]),
        anthropicReply([{ type: "text", text: "child report" }]),
        anthropicReply([{ type: "text", text: "done" }]),
      ]);
      const session = createSession({ cwd: project, tools: builtinTools({ skills: { skills }, subagents: { skills } }), sessionDir: join(dir, "session") });
      try {
        for await (const event of runAgent({ session, provider: new AnthropicProvider({ baseURL: server.url, apiKey: "k" }), model: "m", prompt: "explore" })) void event;
      } finally {
        await session.close();
      }
      const child = server.requests[1]!;
      expect((child.body.tools as Array<{ name: string }>).map((t) => t.name)).toContain("Skill");
      expect(systemText(child)).toContain("- mine: The user's skill.");
    });
  });
});

describe("allowed-tools grants until the turn ends, below deny and ask rules and the safety checks", () => {
  type Case = { allowed: string; mode?: "default" | "plan" | "auto" | "dontAsk"; deny?: string[]; ask?: string[]; call: [string, Json]; before: string; during: string };
  const cases: Case[] = [
    { allowed: "Bash(git status *), Bash(git status)", call: ["Bash", { command: "git status" }], before: "allow", during: "allow" },
    { allowed: "Bash(touch made.txt)", call: ["Bash", { command: "touch made.txt" }], before: "ask", during: "allow" },
    // A listed prefix does not launder what is chained after it, nor what a substitution runs.
    { allowed: "Bash(touch made.txt)", call: ["Bash", { command: "touch made.txt; rm -f notes.txt" }], before: "ask", during: "ask" },
    { allowed: "Bash(echo *)", call: ["Bash", { command: "echo $(rm notes.txt)" }], before: "ask", during: "ask" },
    { allowed: "Read", call: ["Write", { file_path: "WHERE/new.txt", content: "x" }], before: "ask", during: "ask" },
    { allowed: "Write", call: ["Write", { file_path: "WHERE/new.txt", content: "x" }], before: "ask", during: "allow" },
    // Outside the working directories a bare tool name does not reach (as with an allow rule).
    { allowed: "Write", call: ["Write", { file_path: "/tmp/outside-armature-skill-test.txt", content: "x" }], before: "ask", during: "ask" },
    // Protected paths still need a human.
    { allowed: "Write, Bash", call: ["Write", { file_path: "WHERE/.git/hooks/pre-commit", content: "x" }], before: "ask", during: "ask" },
    { allowed: "Bash", deny: ["Bash(touch *)"], call: ["Bash", { command: "touch made.txt" }], before: "deny", during: "deny" },
    { allowed: "Bash", ask: ["Bash(touch *)"], call: ["Bash", { command: "touch made.txt" }], before: "ask", during: "ask" },
    { allowed: "Write", mode: "plan", call: ["Write", { file_path: "WHERE/new.txt", content: "x" }], before: "deny", during: "deny" },
    { allowed: "Bash", mode: "dontAsk", call: ["Bash", { command: "touch made.txt" }], before: "deny", during: "allow" },
    // Auto mode sets a broad exec grant aside (the classifier reviews the call), as it does a user's rule.
    { allowed: "Bash", mode: "auto", call: ["Bash", { command: "python3 -c 1" }], before: "ask", during: "ask" },
    { allowed: "Bash(python3 -c 1)", mode: "auto", call: ["Bash", { command: "python3 -c 1" }], before: "ask", during: "allow" },
    // A list that does not parse grants nothing.
    { allowed: "Bash(unclosed", call: ["Bash", { command: "touch made.txt" }], before: "ask", during: "ask" },
  ];
  for (const c of cases) {
    it(`${c.allowed} | ${c.mode ?? "default"}${c.deny ? ` deny ${c.deny}` : ""}${c.ask ? ` ask ${c.ask}` : ""} | ${c.call[0]} ${JSON.stringify(c.call[1])}: ${c.before} → ${c.during}`, async () => {
      await withTempDir(async (dir) => {
        await writeFile(join(dir, "notes.txt"), "alpha\n");
        await skillFolder(join(dir, "skills"), "grant", `description: Grant.\nallowed-tools: ${c.allowed}`, "Body.\n");
        const skills = await loadSkills({ projectDir: dir, projectTrusted: false, userDir: dir, home: dir });
        const session = createSession({ cwd: dir, tools: builtinTools({ skills: { skills } }), permissionMode: c.mode ?? "default", deny: c.deny, ask: c.ask, sessionDir: join(dir, "session") });
        try {
          const input = JSON.parse(JSON.stringify(c.call[1]).replaceAll("WHERE", dir)) as Json;
          const decide = async () => (await session.checkPermission(toolUse(c.call[0], input))).behavior;
          expect(await decide()).toBe(c.before);
          // Skill is allowed in every mode but plan's refusal of changes (it changes nothing).
          const [launched] = await session.runTurn([toolUse("Skill", { skill: "grant" })]);
          expect(launched!.content).toBe("Launching skill: grant");
          expect(await decide()).toBe(c.during);
        } finally {
          await session.close();
        }
      });
    });
  }

  it("the effect: a granted command runs, the same command chained with another is refused and nothing of it runs", async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, "notes.txt"), "alpha\n");
      await skillFolder(join(dir, "skills"), "grant", "description: Grant.\nallowed-tools: Bash(touch made.txt)", "Body.\n");
      const skills = await loadSkills({ projectDir: dir, projectTrusted: false, userDir: dir, home: dir });
      const session = createSession({ cwd: dir, tools: builtinTools({ skills: { skills } }), sessionDir: join(dir, "session") });
      try {
        await session.runTurn([toolUse("Skill", { skill: "grant" })]);
        const [chained] = await session.runTurn([toolUse("Bash", { command: "touch made.txt; rm notes.txt" })]);
        expect(chained!.is_error).toBe(true);
        expect(existsSync(join(dir, "made.txt"))).toBe(false);
        expect(existsSync(join(dir, "notes.txt"))).toBe(true);
        const [alone] = await session.runTurn([toolUse("Bash", { command: "touch made.txt" })]);
        expect(alone!.is_error).toBeUndefined();
        expect(existsSync(join(dir, "made.txt"))).toBe(true);
      } finally {
        await session.close();
      }
    });
  });
});

describe("Skill(...) rules, per skill", () => {
  const cases: Array<{ rules: { deny?: string[]; ask?: string[] }; expected: Record<string, "allow" | "deny" | "ask"> }> = [
    // One skill named: only that one (denying one never denies them all).
    { rules: { deny: ["Skill(deploy)"] }, expected: { deploy: "deny", "deploy-prod": "allow", review: "allow", "/deploy": "deny" } },
    // The prefix forms: every skill whose name starts so.
    { rules: { deny: ["Skill(deploy:*)"] }, expected: { deploy: "deny", "deploy-prod": "deny", review: "allow" } },
    { rules: { deny: ["Skill(deploy *)"] }, expected: { deploy: "deny", "deploy-prod": "deny", review: "allow" } },
    // A leading slash in the rule is not part of the name; an ask rule asks for that skill only.
    { rules: { ask: ["Skill(/review)"] }, expected: { deploy: "allow", review: "ask" } },
    // The bare tool name still covers every skill.
    { rules: { deny: ["Skill"] }, expected: { deploy: "deny", review: "deny" } },
  ];
  for (const c of cases) {
    it(`${JSON.stringify(c.rules)}: ${JSON.stringify(c.expected)}`, async () => {
      await withTempDir(async (dir) => {
        for (const name of ["deploy", "deploy-prod", "review"]) await skillFolder(join(dir, "skills"), name, `description: The ${name} skill.`, "Body.\n");
        const skills = await loadSkills({ projectDir: dir, projectTrusted: false, userDir: dir, home: dir });
        const session = createSession({ cwd: dir, tools: builtinTools({ skills: { skills } }), ...c.rules, sessionDir: join(dir, "session") });
        try {
          const decided: Record<string, string> = {};
          for (const skill of Object.keys(c.expected)) decided[skill] = (await session.checkPermission(toolUse("Skill", { skill }))).behavior;
          expect(decided).toEqual(c.expected);
        } finally {
          await session.close();
        }
      });
    });
  }

  it("a denied skill is not launched; another skill still is", async () => {
    await withTempDir(async (dir) => {
      for (const name of ["deploy", "review"]) await skillFolder(join(dir, "skills"), name, `description: The ${name} skill.`, `Steps for ${name}.\n`);
      const skills = await loadSkills({ projectDir: dir, projectTrusted: false, userDir: dir, home: dir });
      const session = createSession({ cwd: dir, tools: builtinTools({ skills: { skills } }), deny: ["Skill(deploy)"], sessionDir: join(dir, "session") });
      try {
        const [denied, launched] = await session.runTurn([toolUse("Skill", { skill: "deploy" }), toolUse("Skill", { skill: "review" })]);
        expect(denied!.is_error).toBe(true);
        expect(JSON.stringify(denied!.content)).toMatch(/Permission to use Skill was denied/);
        expect(launched!.content).toBe("Launching skill: review");
      } finally {
        await session.close();
      }
    });
  });
});

describe("an untrusted project's skills and agents", () => {
  it("are named in the trust warning as not loaded; once the project is trusted they load", async () => {
    await withTempDir(async (raw) => {
      const dir = await realpath(raw);
      await skillFolder(join(dir, ".armature", "skills"), "projskill", "description: The project's own.", "Project steps.\n");
      await mkdir(join(dir, ".armature", "skills", "not-a-skill"), { recursive: true });
      await mkdir(join(dir, ".armature", "agents"), { recursive: true });
      await writeFile(join(dir, ".armature", "agents", "helper.md"), "---\nname: helper\ndescription: Helps.\n---\nHelp.\n");
      const turn = JSON.stringify([toolUse("Skill", { skill: "projskill" })]);
      const untrusted = captureIO(turn);
      expect(await main(["exec", "--cwd", dir], untrusted)).toBe(0);
      expect(untrusted.err).toContain(`${dir} is not trusted`);
      expect(untrusted.err).toContain(`${join(dir, ".armature", "skills")}: skills (projskill)`);
      expect(untrusted.err).toContain(`${join(dir, ".armature", "agents")}: sub-agent definitions (helper)`);
      expect(untrusted.out).toContain("is_error");
      expect(await main(["trust", dir], captureIO())).toBe(0);
      const trusted = captureIO(turn);
      expect(await main(["exec", "--cwd", dir], trusted)).toBe(0);
      expect(trusted.err).not.toContain("is not trusted");
      expect(trusted.out).toContain("Launching skill: projskill");
      expect(await main(["trust", "--revoke", dir], captureIO())).toBe(0);
    });
  });
});
