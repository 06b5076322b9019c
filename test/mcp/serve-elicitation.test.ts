import { existsSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ElicitRequestSchema, type CallToolResult, type ElicitRequestFormParams, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, startServeHttp, tempDir, waitFor } from "./helpers.js";

const USER_FACING = ["AskUserQuestion", "EnterPlanMode", "ExitPlanMode"];
const text = (r: unknown): string => ((r as CallToolResult).content as Array<{ text: string }>).map((c) => c.text).join("\n");

type Answer = (params: ElicitRequestFormParams) => ElicitResult;

/** The SDK's client, with the elicitation capability when it is given a way to answer forms. */
function client(answer?: Answer): { client: Client; forms: ElicitRequestFormParams[] } {
  const forms: ElicitRequestFormParams[] = [];
  const c = new Client({ name: "test-client", version: "1" }, { capabilities: answer ? { elicitation: { form: {} } } : {} });
  if (answer) {
    c.setRequestHandler(ElicitRequestSchema, async (req) => {
      const params = req.params as ElicitRequestFormParams;
      forms.push(params);
      return answer(params);
    });
  }
  return { client: c, forms };
}

const stdio = (cwd: string, extra: string[] = []): Transport =>
  new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp", "serve", "--cwd", cwd, ...extra], stderr: "pipe" });

/** Answers the forms of this file: questions by their first option (all options when several may be chosen), plans by `plans`, other calls declined. */
function answering(plans: Array<{ decision: string; feedback?: string }>): Answer {
  return (params) => {
    const props = params.requestedSchema.properties as Record<string, { oneOf?: Array<{ const: string }>; items?: { anyOf: Array<{ const: string }> } }>;
    if ("decision" in props) return { action: "accept", content: plans.shift() ?? { decision: "reject" } };
    if ("approve" in props) return { action: "decline" };
    const content: Record<string, string | string[]> = {};
    for (const [key, p] of Object.entries(props)) content[key] = p.items ? p.items.anyOf.map((o) => o.const) : p.oneOf![0]!.const;
    return { action: "accept", content };
  };
}

const QUESTIONS = {
  questions: [
    {
      question: "Which database?",
      header: "DB",
      multiSelect: false,
      options: [
        { label: "Postgres", description: "relational" },
        { label: "SQLite", description: "a file" },
      ],
    },
    {
      question: "Which checks?",
      header: "Checks",
      multiSelect: true,
      options: [
        { label: "lint", description: "style" },
        { label: "types", description: "tsc" },
        { label: "tests", description: "vitest" },
      ],
    },
  ],
};

async function userFacingTools(c: Client): Promise<string[]> {
  return (await c.listTools()).tools.map((t) => t.name).filter((n) => USER_FACING.includes(n));
}

describe("mcp serve: user-facing tools only for clients that can answer forms", () => {
  const tmp = tempDir();
  afterAll(() => tmp.cleanup());

  it("a client without elicitation is offered no question or plan tool, cannot enter plan mode, and its writes still run (bypassPermissions)", async () => {
    const { client: c } = client();
    await c.connect(stdio(tmp.dir, ["--mode", "bypassPermissions"]));
    try {
      expect(await userFacingTools(c)).toEqual([]);
      for (const name of USER_FACING) {
        const r = await c.callTool({ name, arguments: name === "AskUserQuestion" ? QUESTIONS : {} });
        expect(r.isError).toBe(true);
        expect(text(r)).toContain(`No such tool available: ${name}`);
      }
      const target = join(tmp.dir, "after-enter.txt");
      const write = await c.callTool({ name: "Write", arguments: { file_path: target, content: "x" } });
      expect(write.isError).toBeFalsy();
      expect(existsSync(target)).toBe(true);
    } finally {
      await c.close();
    }
  }, 60_000);

  it("started in plan mode (--mode plan), a client without elicitation stays read-only, and the server says so", async () => {
    const { client: c } = client();
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp", "serve", "--cwd", tmp.dir, "--mode", "plan"], stderr: "pipe" });
    let stderr = "";
    transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
    await c.connect(transport);
    try {
      expect(await userFacingTools(c)).toEqual([]);
      const target = join(tmp.dir, "in-plan.txt");
      expect((await c.callTool({ name: "Write", arguments: { file_path: target, content: "x" } })).isError).toBe(true);
      expect(existsSync(target)).toBe(false);
      await waitFor(() => stderr.includes("serving in plan mode: a client without elicitation is not offered ExitPlanMode"));
    } finally {
      await c.close();
    }
  }, 60_000);

  it("AskUserQuestion is a form with the real options: one choice as oneOf, several as an array of anyOf", async () => {
    const { client: c, forms } = client(answering([]));
    await c.connect(stdio(tmp.dir));
    try {
      expect((await userFacingTools(c)).sort()).toEqual(USER_FACING);
      const r = await c.callTool({ name: "AskUserQuestion", arguments: QUESTIONS });
      expect(r.isError).toBeFalsy();
      expect(forms).toHaveLength(1);
      expect(forms[0]!.requestedSchema.properties).toEqual({
        q0: {
          type: "string",
          title: "DB",
          description: "Which database?",
          oneOf: [
            { const: "Postgres", title: "Postgres: relational" },
            { const: "SQLite", title: "SQLite: a file" },
          ],
        },
        q1: {
          type: "array",
          title: "Checks",
          description: "Which checks?",
          minItems: 1,
          items: {
            anyOf: [
              { const: "lint", title: "lint: style" },
              { const: "types", title: "types: tsc" },
              { const: "tests", title: "tests: vitest" },
            ],
          },
        },
      });
      expect(text(r)).toBe(
        'Your questions have been answered: "Which database?"="Postgres", "Which checks?"="lint, types, tests". You can now continue with these answers in mind.',
      );
    } finally {
      await c.close();
    }
  }, 60_000);

  it("plan mode is left through an approve/reject form: rejected stays read-only with the feedback, approved writes again", async () => {
    const { client: c, forms } = client(answering([{ decision: "reject", feedback: "add tests" }, { decision: "approve" }]));
    await c.connect(stdio(tmp.dir, ["--mode", "bypassPermissions"]));
    const target = join(tmp.dir, "planned.txt");
    const write = () => c.callTool({ name: "Write", arguments: { file_path: target, content: "done" } });
    try {
      expect((await c.callTool({ name: "EnterPlanMode", arguments: {} })).isError).toBeFalsy();
      expect((await write()).isError).toBe(true);
      expect(existsSync(target)).toBe(false);
      const rejected = await c.callTool({ name: "ExitPlanMode", arguments: { plan: "1. write planned.txt" } });
      expect(rejected.isError).toBe(true);
      expect(text(rejected)).toContain("The user rejected the plan");
      expect(text(rejected)).toContain("add tests");
      expect((await write()).isError).toBe(true);
      expect(existsSync(target)).toBe(false);
      const approved = await c.callTool({ name: "ExitPlanMode", arguments: { plan: "1. write planned.txt\n2. test it" } });
      // The result, then what the call adds to the conversation (the plan-mode reminder) as an item of its own.
      expect((approved.content as Array<{ text: string }>).map((c) => c.text)).toEqual(["User has approved exiting plan mode. You can now proceed.", expect.stringMatching(/^<system-reminder>\n## Exited Plan Mode\n/)]);
      expect((await write()).isError).toBeFalsy();
      expect(existsSync(target)).toBe(true);
      const planForms = forms.filter((f) => "decision" in f.requestedSchema.properties);
      expect(planForms).toHaveLength(2);
      expect(planForms[1]!.message).toContain("2. test it");
      expect(planForms[1]!.requestedSchema.properties.decision).toMatchObject({ oneOf: [{ const: "approve" }, { const: "reject" }] });
    } finally {
      await c.close();
    }
  }, 60_000);

  it("over HTTP: the same per client, by the capability each one declared", async () => {
    const served = await startServeHttp(["--cwd", tmp.dir, "--token", "a-token-of-sixteen-chars"]);
    try {
      const url = served.url;
      const http = () => new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: "Bearer a-token-of-sixteen-chars" } } });
      const plain = client();
      const capable = client(answering([]));
      await plain.client.connect(http());
      await capable.client.connect(http());
      expect(await userFacingTools(plain.client)).toEqual([]);
      expect((await plain.client.callTool({ name: "AskUserQuestion", arguments: QUESTIONS })).isError).toBe(true);
      const r = await capable.client.callTool({ name: "AskUserQuestion", arguments: QUESTIONS });
      expect(text(r)).toContain('"Which database?"="Postgres"');
      expect(capable.forms).toHaveLength(1);
      await plain.client.close();
      await capable.client.close();
    } finally {
      await served.stop();
    }
  }, 60_000);
});
