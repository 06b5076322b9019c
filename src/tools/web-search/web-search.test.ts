import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinTools } from "../index.js";
import { createSession } from "../../session/session.js";
import { toolUse, withTempDir } from "../../../test/helpers.js";
import { anthropicWebSearch } from "./backend.js";
import { createWebSearchTool } from "./web-search-tool.js";

let server: Server;
let baseURL: string;
const requests: Array<{ path: string; body: Record<string, unknown>; apiKey: string }> = [];
let reply: unknown;

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString()));
    req.on("end", () => {
      requests.push({ path: req.url ?? "", body: JSON.parse(raw) as Record<string, unknown>, apiKey: String(req.headers["x-api-key"] ?? req.headers.authorization ?? "") });
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const message = (content: unknown[]) => ({
  id: "msg_1", type: "message", role: "assistant", model: "m", stop_reason: "end_turn", stop_sequence: null,
  usage: { input_tokens: 1, output_tokens: 1 }, content,
});

async function search(input: Record<string, unknown>) {
  return withTempDir(async (dir) => {
    const tool = createWebSearchTool({ backend: anthropicWebSearch({ model: "small-model", apiKey: "k-test", baseURL }) });
    const session = createSession({ cwd: dir, tools: [tool], allow: ["WebSearch"] });
    const [r] = await session.runTurn([toolUse("WebSearch", input)]);
    await session.close();
    return r!;
  });
}

describe("WebSearch with the Anthropic server tool, against a scripted API on 127.0.0.1", () => {
  it("asks the way the reference does and renders links and summary in the reference's format", async () => {
    reply = message([
      { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "typescript zod schema" } },
      { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: [
        { type: "web_search_result", title: "Zod | Documentation", url: "https://zod.dev/", encrypted_content: "x", page_age: null },
        { type: "web_search_result", title: "colinhacks/zod", url: "https://github.com/colinhacks/zod", encrypted_content: "y", page_age: null },
      ] },
      { type: "text", text: "Zod is a TypeScript-first schema validation library." },
    ]);
    const r = await search({ query: "typescript zod schema", allowed_domains: ["zod.dev", "github.com"] });
    expect(r.content).toBe(
      'Web search results for query: "typescript zod schema"\n\nLinks: [{"title":"Zod | Documentation","url":"https://zod.dev/"},{"title":"colinhacks/zod","url":"https://github.com/colinhacks/zod"}]\n\nZod is a TypeScript-first schema validation library.\n\n\nREMINDER: You MUST include the sources above in your response to the user using markdown hyperlinks.',
    );
    const sent = requests.at(-1)!;
    expect(sent.path).toBe("/v1/messages");
    expect(sent.apiKey).toMatch(/k-test$/);
    expect(sent.body.tools).toEqual([{ type: "web_search_20250305", name: "web_search", max_uses: 8, allowed_domains: ["zod.dev", "github.com"] }]);
    expect(sent.body.tool_choice).toEqual({ type: "auto" });
    expect(sent.body.messages).toEqual([{ role: "user", content: "Perform a web search for the query: typescript zod schema" }]);
  });

  it("with no results, only the text; a search error is reported as text", async () => {
    reply = message([{ type: "text", text: "Mock search: no results." }]);
    expect((await search({ query: "armature typescript tools" })).content).toBe(
      'Web search results for query: "armature typescript tools"\n\nMock search: no results.\n\n\nREMINDER: You MUST include the sources above in your response to the user using markdown hyperlinks.',
    );
    reply = message([{ type: "web_search_tool_result", tool_use_id: "s", content: { type: "web_search_tool_result_error", error_code: "max_uses_exceeded" } }]);
    expect(String((await search({ query: "anything" })).content)).toContain("Web search error: max_uses_exceeded");
  });

  it("rejects both domain lists at once, bad domains and one-letter queries", async () => {
    const both = await search({ query: "q q", allowed_domains: ["a.com"], blocked_domains: ["b.com"] });
    expect(String(both.content)).toContain("not both");
    expect(String((await search({ query: "q q", allowed_domains: ["not a domain"] })).content)).toContain("is not a domain name");
    expect((await search({ query: "q" })).is_error).toBe(true);
  });

  it("an API failure is an error result, not a crash", async () => {
    const tool = createWebSearchTool({ backend: anthropicWebSearch({ model: "m", apiKey: "k", baseURL: "http://127.0.0.1:1" }) });
    await withTempDir(async (dir) => {
      const session = createSession({ cwd: dir, tools: [tool], allow: ["WebSearch"] });
      const [r] = await session.runTurn([toolUse("WebSearch", { query: "anything" })]);
      expect(r!.is_error).toBe(true);
      await session.close();
    });
  }, 60_000);

  it("is in the built-in pool only with a backend", () => {
    expect(builtinTools().map((t) => t.name)).not.toContain("WebSearch");
    const backend = anthropicWebSearch({ model: "m" });
    expect(builtinTools({ webSearch: backend }).map((t) => t.name)).toContain("WebSearch");
  });

  it("stops at the per-session cap", async () => {
    reply = message([{ type: "text", text: "ok" }]);
    const tool = createWebSearchTool({ backend: anthropicWebSearch({ model: "m", apiKey: "k", baseURL }), maxCallsPerSession: 1 });
    await withTempDir(async (dir) => {
      const session = createSession({ cwd: dir, tools: [tool], allow: ["WebSearch"] });
      await session.runTurn([toolUse("WebSearch", { query: "first" })]);
      const [r] = await session.runTurn([toolUse("WebSearch", { query: "second" })]);
      expect(String(r!.content)).toContain("used its 1 web searches");
      await session.close();
    });
  });
});
