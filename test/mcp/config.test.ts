import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { expandEnvVars, mergeMcpApproval, parseMcpServers, projectMcpServersAllowed, readMcpConfigFlag, readProjectMcpJson, McpConfigError } from "../../src/mcp/config.js";
import { lazyJsonSchemaValidator } from "../../src/mcp/json-schema.js";
import { mcpToolName, normalizeMcpName } from "../../src/mcp/names.js";
import { tempDir } from "./helpers.js";

describe("MCP configuration", () => {
  const tmp = tempDir();
  afterAll(() => tmp.cleanup());

  it.each([
    ["${HOME_X}", { HOME_X: "/h" }, "/h", []],
    ["${MISSING:-fallback}", {}, "fallback", []],
    ["${EMPTY:-fallback}", { EMPTY: "" }, "fallback", []],
    ["a${MISSING}b", {}, "ab", ["MISSING"]],
    ["$NOT_BRACED ${A}${B}", { A: "1", B: "2" }, "$NOT_BRACED 12", []],
    ["${1BAD}", {}, "${1BAD}", []],
  ])("expands %s", (text, env, out, missing) => {
    const seen = new Set<string>();
    expect(expandEnvVars(text, env, seen)).toBe(out);
    expect([...seen]).toEqual(missing);
  });

  it("reads stdio, http and sse servers; expands command, args, env, url and headers; reports bad entries alone", () => {
    const env = { TOKEN: "t0k", PORT: "9000", BIN: "/usr/bin/node" };
    const parsed = parseMcpServers(
      {
        mcpServers: {
          local: { command: "${BIN}", args: ["--port", "${PORT}"], env: { KEY: "${TOKEN}" } },
          remote: { type: "http", url: "http://127.0.0.1:${PORT}/mcp", headers: { Authorization: "Bearer ${TOKEN}" } },
          legacy: { type: "sse", url: "http://127.0.0.1:${PORT:-1}/sse" },
          "with space": { command: "x" },
          noType: { type: "ws", url: "ws://x" },
          noCommand: { args: [] },
          badUrl: { type: "http", url: "file:///etc/passwd" },
          needsVar: { command: "x", args: ["${UNSET_VAR}"] },
        },
      },
      "/p/.mcp.json",
      "project",
      { env },
    );
    expect(parsed.servers.map((s) => [s.name, s.normalizedName, s.config])).toEqual([
      ["local", "local", { type: "stdio", command: "/usr/bin/node", args: ["--port", "9000"], env: { KEY: "t0k" } }],
      ["remote", "remote", { type: "http", url: "http://127.0.0.1:9000/mcp", headers: { Authorization: "Bearer t0k" } }],
      ["legacy", "legacy", { type: "sse", url: "http://127.0.0.1:9000/sse", headers: {} }],
      ["with space", "with_space", { type: "stdio", command: "x", args: [], env: {} }],
    ]);
    expect(parsed.problems).toEqual([
      '/p/.mcp.json: mcpServers.noType.type: must be "stdio", "http" or "sse"; got "ws"',
      '/p/.mcp.json: mcpServers.noCommand.type: must be "stdio", "http" or "sse"; got undefined',
      '/p/.mcp.json: mcpServers.badUrl.url: "file:///etc/passwd" is not an http(s) URL',
      "/p/.mcp.json: mcpServers.needsVar: environment variable UNSET_VAR not set (use ${VAR:-default} for a default)",
    ]);
  });

  it("a document that is not an object, or a file that is not JSON, is an error naming it", async () => {
    expect(() => parseMcpServers([], "f.json", "dynamic")).toThrow(McpConfigError);
    expect(() => parseMcpServers({ mcpServers: [] }, "f.json", "dynamic")).toThrow("f.json: mcpServers: must be an object");
    writeFileSync(join(tmp.dir, "bad.json"), "{ not json");
    await expect(readMcpConfigFlag("bad.json", tmp.dir)).rejects.toThrow(/bad\.json: not valid JSON/);
    await expect(readMcpConfigFlag("nope.json", tmp.dir)).rejects.toThrow(/no such file \(--mcp-config\)/);
    await expect(readMcpConfigFlag('{"mcpServers":{"a":{"command":"x"}}}', tmp.dir)).resolves.toMatchObject({ servers: [{ name: "a", scope: "dynamic" }] });
    mkdirSync(join(tmp.dir, "proj"));
    expect(await readProjectMcpJson(join(tmp.dir, "proj"))).toEqual({ servers: [], problems: [] });
    writeFileSync(join(tmp.dir, "proj", ".mcp.json"), JSON.stringify({ mcpServers: { p: { command: "x" } } }));
    expect((await readProjectMcpJson(join(tmp.dir, "proj"))).servers[0]).toMatchObject({ name: "p", scope: "project" });
  });

  it.each([
    // [approval, trusted, server, flag, allowed]
    [{}, true, "s", false, false],
    [{ enableAllProjectMcpServers: true }, false, "s", false, false],
    [{ enableAllProjectMcpServers: true }, true, "s", false, true],
    [{ enabledMcpjsonServers: ["s"] }, true, "s", false, true],
    [{ enabledMcpjsonServers: ["s"] }, true, "other", false, false],
    [{ enableAllProjectMcpServers: true, disabledMcpjsonServers: ["s"] }, true, "s", false, false],
    [{}, true, "s", true, true],
    [{}, false, "s", true, false],
    [{ disabledMcpjsonServers: ["s"] }, true, "s", true, false],
  ])("project server approval %j trusted=%s %s flag=%s → %s", (approval, trusted, server, flag, allowed) => {
    expect(projectMcpServersAllowed(approval, trusted, server, flag)).toBe(allowed);
  });

  it("approval keys merge across settings levels: arrays join, the highest boolean wins", () => {
    expect(mergeMcpApproval([{ enableAllProjectMcpServers: false, enabledMcpjsonServers: ["a"] }, { enableAllProjectMcpServers: true, enabledMcpjsonServers: ["b"], disabledMcpjsonServers: ["c"] }, null])).toEqual({
      enableAllProjectMcpServers: false,
      enabledMcpjsonServers: ["a", "b"],
      disabledMcpjsonServers: ["c"],
    });
  });

  it("tool names: mcp__server__tool in [A-Za-z0-9_-], at most 64 characters, distinct when cut", () => {
    expect(mcpToolName("my server", "get.issue")).toBe("mcp__my_server__get_issue");
    expect(normalizeMcpName("ünï/cødé")).toBe("_n__c_d_");
    const a = mcpToolName("s", "x".repeat(80) + "a");
    const b = mcpToolName("s", "x".repeat(80) + "b");
    expect(a.length).toBe(64);
    expect(b.length).toBe(64);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^[A-Za-z0-9_-]+$/);
  });
});

describe("JSON Schema validation of MCP inputs", () => {
  it("draft-07 and 2020-12 schemas, errors in the model-facing wording", () => {
    const v7 = lazyJsonSchemaValidator({ $schema: "http://json-schema.org/draft-07/schema#", type: "object", properties: { n: { type: "integer" }, mode: { enum: ["a", "b"] } }, required: ["n"], additionalProperties: false }, "T");
    expect(v7({ n: 1 })).toEqual([]);
    expect(v7({ n: "1", mode: "c", extra: true })).toEqual([
      "An unexpected parameter `extra` was provided",
      "The parameter `n` type is expected as `integer` but provided as `string`",
      'The parameter `mode` must be one of "a", "b", but "c" was provided',
    ]);
    const v2020 = lazyJsonSchemaValidator({ $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties: { list: { type: "array", prefixItems: [{ type: "string" }] } } }, "T");
    expect(v2020({ list: [1] })).toEqual(["The parameter `list[0]` type is expected as `string` but provided as `number`"]);
    expect(v2020({ list: ["ok"] })).toEqual([]);
  });

  it("a schema that does not compile fails closed: every input is refused with the reason", () => {
    const broken = lazyJsonSchemaValidator({ type: "object", properties: { a: { $ref: "#/definitions/missing" } } }, "The MCP tool mcp__s__t");
    const problems = broken({ a: 1 });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^The MCP tool mcp__s__t has an input schema that cannot be used \(.*missing.*\), so the call was not sent/);
  });
});
