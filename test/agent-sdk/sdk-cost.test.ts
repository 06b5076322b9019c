// Cost and modelUsage as SDK programs read them (both pinned SDK releases): cumulative over the
// session and across resume, the per-turn `usage` beside them; the default model has a price.
import type { SDKMessage } from "@anthropic-ai/claude-agent-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { anthropicReply, startMockModelServer, type MockModelServer } from "../mock-model-server.js";
import { inputQueue, runQuery, SDK_VERSIONS, sdkEnv, sdkWorkspace, userMessage } from "./sdk-helpers.js";

let server: MockModelServer | undefined;
let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await server?.close();
  await cleanup?.();
  server = undefined;
  cleanup = undefined;
});

const text = (t: string) => anthropicReply([{ type: "text", text: t }]);
/** One scripted request (100 input + 10 output tokens) on claude-sonnet-5-5, the default model: $2 / $10 per million. */
const PER_REQUEST = (100 * 2 + 10 * 10) / 1e6;

describe.each(SDK_VERSIONS)("SDK %s: cost over the session", (sdk) => {
  it("total_cost_usd and modelUsage add up over the turns and across resume; usage is the turn's", async () => {
    const ws = await sdkWorkspace();
    cleanup = ws.cleanup;
    server = await startMockModelServer([text("one"), text("two"), text("three")]);
    const env = sdkEnv(ws.home, { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "test-key" });
    const input = inputQueue();
    input.push(userMessage("first"));
    const results: Array<Extract<SDKMessage, { type: "result" }>> = [];
    const run = await runQuery(input.iterable, { cwd: ws.cwd, env }, (m) => {
      if (m.type !== "result") return;
      results.push(m);
      if (results.length === 1) input.push(userMessage("second"));
      else input.end();
    }, sdk);
    expect(run.error, run.stderr).toBeUndefined();
    expect(server.requests[0]?.body.model).toBe("claude-sonnet-5-5");
    expect(results.map((r) => r.total_cost_usd)).toEqual([PER_REQUEST, 2 * PER_REQUEST].map((c) => expect.closeTo(c, 10)));
    expect(results.map((r) => r.usage.input_tokens)).toEqual([100, 100]);
    expect(results[1]?.modelUsage["claude-sonnet-5-5"]).toMatchObject({ inputTokens: 200, outputTokens: 20 });
    expect(results[1]?.modelUsage["claude-sonnet-5-5"]?.costUSD).toBeCloseTo(2 * PER_REQUEST, 10);

    const resumed = await runQuery("third", { cwd: ws.cwd, env, resume: results[0]!.session_id }, undefined, sdk);
    expect(resumed.error, resumed.stderr).toBeUndefined();
    expect(resumed.result?.total_cost_usd).toBeCloseTo(3 * PER_REQUEST, 10);
    expect(resumed.result?.modelUsage["claude-sonnet-5-5"]).toMatchObject({ inputTokens: 300, outputTokens: 30 });
    expect(resumed.result?.usage.input_tokens).toBe(100);
  });
});
