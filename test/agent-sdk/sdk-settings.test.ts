// settingSources as the reference reads it (user, project, local; omitted = all), with armature's
// trust rules: a project's restricting keys (deny rules) apply trusted or not, its widening keys
// (allow rules) only once the project is trusted (here through the host's workspaceTrust); its
// CLAUDE.md reaches the model with the project source, whatever the system prompt.
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Options } from "@anthropic-ai/claude-agent-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { anthropicReply, startMockModelServer, type MockModelServer, type RecordedRequest } from "../mock-model-server.js";
import { runQuery, SDK_VERSIONS, sdkEnv, sdkWorkspace } from "./sdk-helpers.js";

let server: MockModelServer | undefined;
let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await server?.close();
  await cleanup?.();
  server = undefined;
  cleanup = undefined;
});

/** A project with a `.claude/settings.json` denying Read of secret.txt and allowing `touch`, and a CLAUDE.md. */
async function project() {
  const ws = await sdkWorkspace();
  cleanup = ws.cleanup;
  await mkdir(join(ws.cwd, ".claude"), { recursive: true });
  await writeFile(join(ws.cwd, ".claude", "settings.json"), JSON.stringify({ permissions: { deny: ["Read(./secret.txt)"], allow: ["Bash(touch *)"] } }));
  await writeFile(join(ws.cwd, "CLAUDE.md"), "PROJECT-NOTES-MARKER: use tabs.\n");
  await writeFile(join(ws.cwd, "secret.txt"), "TOP-SECRET-CONTENT\n");
  return ws;
}

function lastResults(request: RecordedRequest | undefined): string {
  const messages = (request?.body.messages ?? []) as Array<{ role: string; content: unknown }>;
  return JSON.stringify(messages.at(-1)?.content ?? "");
}

describe.each(SDK_VERSIONS)("SDK %s: settingSources", (sdk) => {
  async function readSecret(options: Partial<Options>) {
    const ws = await project();
    server = await startMockModelServer([anthropicReply([{ type: "tool_use", id: "toolu_r", name: "Read", input: { file_path: join(ws.cwd, "secret.txt") } }]), anthropicReply([{ type: "text", text: "done" }])]);
    const env = sdkEnv(ws.home, { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "test-key" });
    const run = await runQuery("read it", { cwd: ws.cwd, env, ...options }, undefined, sdk);
    expect(run.error, run.stderr).toBeUndefined();
    return { result: lastResults(server.requests[1]), system: JSON.stringify(server.requests[0]?.body.system ?? "") };
  }

  it.each<[string, Partial<Options>]>([
    ["omitted", {}],
    ["['project']", { settingSources: ["project"] }],
    ["['user', 'project', 'local']", { settingSources: ["user", "project", "local"] }],
  ])("settingSources %s: the untrusted project's deny rule applies and its CLAUDE.md reaches the model", async (_name, options) => {
    const seen = await readSecret({ ...options, systemPrompt: "HOST-PROMPT" });
    expect(seen.result).not.toContain("TOP-SECRET-CONTENT");
    expect(seen.result).toContain("denied");
    expect(seen.system).toContain("HOST-PROMPT");
    expect(seen.system).toContain("PROJECT-NOTES-MARKER");
  });

  it("settingSources [] and ['user']: the project's files are not read (no deny rule, no CLAUDE.md)", async () => {
    for (const settingSources of [[], ["user"]] as Array<NonNullable<Options["settingSources"]>>) {
      const seen = await readSecret({ settingSources, permissionMode: "bypassPermissions", allowDangerouslySkipPermissions: true });
      expect(seen.result).toContain("TOP-SECRET-CONTENT");
      expect(seen.system).not.toContain("PROJECT-NOTES-MARKER");
      await server?.close();
      await cleanup?.();
    }
    server = undefined;
    cleanup = undefined;
  });

  it("the project's allow rule (a widening key) applies only once the host says the folder is trusted", async () => {
    for (const trusted of [false, true]) {
      const ws = await project();
      const marker = join(ws.cwd, `marker-${trusted}`);
      server = await startMockModelServer([anthropicReply([{ type: "tool_use", id: "toolu_t", name: "Bash", input: { command: `touch ${marker}` } }]), anthropicReply([{ type: "text", text: "done" }])]);
      const env = sdkEnv(ws.home, { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "test-key" });
      const options = { cwd: ws.cwd, env, ...(trusted ? { workspaceTrust: { accepted: true, directory: ws.cwd } } : {}) } as Options;
      const run = await runQuery("touch it", options, undefined, sdk);
      expect(run.error, run.stderr).toBeUndefined();
      expect(existsSync(marker)).toBe(trusted);
      expect(run.result?.permission_denials.length).toBe(trusted ? 0 : 1);
      await server.close();
      await ws.cleanup();
    }
    server = undefined;
    cleanup = undefined;
  });

  it("settings, disallowedTools and additionalDirectories delivered in initialize are applied and confirmed", async () => {
    const ws = await project();
    const other = join(ws.home, "other");
    await mkdir(other, { recursive: true });
    await writeFile(join(other, "notes.txt"), "OTHER-DIR-NOTES\n");
    await writeFile(join(ws.cwd, "host-secret.txt"), "HOST-SECRET\n");
    server = await startMockModelServer([
      anthropicReply([
        { type: "tool_use", id: "toolu_o", name: "Read", input: { file_path: join(other, "notes.txt") } },
        { type: "tool_use", id: "toolu_s", name: "Read", input: { file_path: join(ws.cwd, "host-secret.txt") } },
      ]),
      anthropicReply([{ type: "text", text: "done" }]),
    ]);
    const env = sdkEnv(ws.home, { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "test-key" });
    const options = {
      cwd: ws.cwd,
      env,
      settings: { permissions: { deny: ["Read(./host-secret.txt)"] } },
      settingsDelivery: "initialize",
      disallowedTools: ["Bash"],
      disallowedToolsDelivery: "initialize",
      additionalDirectories: [other],
      additionalDirectoriesDelivery: "initialize",
    } as Options;
    const run = await runQuery("read both", options, undefined, sdk);
    expect(run.error, run.stderr).toBeUndefined();
    const tools = ((server.requests[0]?.body.tools ?? []) as Array<{ name: string }>).map((t) => t.name);
    expect(tools).not.toContain("Bash");
    const results = lastResults(server.requests[1]);
    expect(results).toContain("OTHER-DIR-NOTES");
    expect(results).not.toContain("HOST-SECRET");
    expect(run.result?.permission_denials.map((d) => d.tool_use_id)).toEqual(["toolu_s"]);
  });
});
