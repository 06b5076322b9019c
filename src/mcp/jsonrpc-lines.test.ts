import { describe, expect, it } from "vitest";
import { JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { JsonRpcLineReader, jsonRpcProblem } from "./jsonrpc-lines.js";

// Every case is judged by the SDK's own schema too: the check must accept exactly what it accepts.
const accepted: Array<[string, unknown]> = [
  ["request", { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "add", arguments: { a: 1 } } }],
  ["request with a string id and no params", { jsonrpc: "2.0", id: "abc", method: "ping" }],
  ["request with a progress token", { jsonrpc: "2.0", id: 0, method: "tools/call", params: { _meta: { progressToken: 7 } } }],
  ["request with a string progress token", { jsonrpc: "2.0", id: 0, method: "x", params: { _meta: { progressToken: "t" } } }],
  ["notification", { jsonrpc: "2.0", method: "notifications/tools/list_changed" }],
  ["notification with params", { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 2 } }],
  ["result", { jsonrpc: "2.0", id: 3, result: { content: [{ type: "text", text: "4" }], structuredContent: { sum: 4 } } }],
  ["empty result", { jsonrpc: "2.0", id: 3, result: {} }],
  ["result with _meta", { jsonrpc: "2.0", id: 3, result: { _meta: { anything: true } } }],
  ["error", { jsonrpc: "2.0", id: 4, error: { code: -32602, message: "bad params", data: { x: 1 } } }],
  ["error without an id", { jsonrpc: "2.0", error: { code: -32700, message: "parse error" } }],
  ["error with extra keys in error", { jsonrpc: "2.0", id: 4, error: { code: 1, message: "m", extra: 1 } }],
];

const refused: Array<[string, unknown]> = [
  ["a string", "this is not json"],
  ["null", null],
  ["an array (batch)", [{ jsonrpc: "2.0", id: 1, method: "ping" }]],
  ["no jsonrpc", { id: 1, method: "ping" }],
  ["jsonrpc 1.0", { jsonrpc: "1.0", id: 1, method: "ping" }],
  ["method not a string", { jsonrpc: "2.0", id: 1, method: 5 }],
  ["fractional id", { jsonrpc: "2.0", id: 1.5, method: "ping" }],
  ["null id on a request", { jsonrpc: "2.0", id: null, method: "ping" }],
  ["params an array", { jsonrpc: "2.0", id: 1, method: "ping", params: [1, 2] }],
  ["_meta not an object", { jsonrpc: "2.0", id: 1, method: "ping", params: { _meta: 3 } }],
  ["progress token a float", { jsonrpc: "2.0", id: 1, method: "ping", params: { _meta: { progressToken: 1.5 } } }],
  ["an extra key on a request", { jsonrpc: "2.0", id: 1, method: "ping", extra: true }],
  ["an extra key on a notification", { jsonrpc: "2.0", method: "n", extra: true }],
  ["result without an id", { jsonrpc: "2.0", result: {} }],
  ["result an array", { jsonrpc: "2.0", id: 1, result: [1] }],
  ["result a string", { jsonrpc: "2.0", id: 1, result: "ok" }],
  ["result and error together", { jsonrpc: "2.0", id: 1, result: {}, error: { code: 1, message: "m" } }],
  ["an extra key on a result", { jsonrpc: "2.0", id: 1, result: {}, extra: 1 }],
  ["error code a float", { jsonrpc: "2.0", id: 1, error: { code: 1.5, message: "m" } }],
  ["error without a message", { jsonrpc: "2.0", id: 1, error: { code: 1 } }],
  ["error not an object", { jsonrpc: "2.0", id: 1, error: "boom" }],
  ["neither kind", { jsonrpc: "2.0", id: 1 }],
];

describe("jsonRpcProblem agrees with the SDK's JSON-RPC schema", () => {
  it.each(accepted)("accepts %s", (_name, value) => {
    expect(JSONRPCMessageSchema.safeParse(value).success).toBe(true);
    expect(jsonRpcProblem(value)).toBeNull();
  });
  it.each(refused)("refuses %s", (_name, value) => {
    expect(JSONRPCMessageSchema.safeParse(value).success).toBe(false);
    expect(jsonRpcProblem(value)).toEqual(expect.any(String));
  });
});

function collect(max = 1_000): { reader: JsonRpcLineReader; messages: JSONRPCMessage[]; bad: string[]; tooLong: string[] } {
  const out = { reader: new JsonRpcLineReader(max), messages: [] as JSONRPCMessage[], bad: [] as string[], tooLong: [] as string[] };
  return out;
}

describe("JsonRpcLineReader", () => {
  const handlersOf = (c: ReturnType<typeof collect>) => ({
    message: (m: JSONRPCMessage) => c.messages.push(m),
    badLine: (e: Error) => c.bad.push(e.message),
    tooLong: (e: Error) => c.tooLong.push(e.message),
  });

  it("reads several messages from one chunk and one message from many chunks (a multi-byte character split between them)", () => {
    const c = collect();
    const h = handlersOf(c);
    c.reader.push(Buffer.from('{"jsonrpc":"2.0","method":"a"}\n{"jsonrpc":"2.0","method":"b"}\r\n'), h);
    const text = Buffer.from('{"jsonrpc":"2.0","id":1,"result":{"text":"héllo ✓"}}\n');
    const cut = text.indexOf(0xe2) + 1; // inside the three bytes of ✓
    c.reader.push(text.subarray(0, 5), h);
    c.reader.push(text.subarray(5, cut), h);
    c.reader.push(text.subarray(cut), h);
    expect(c.messages).toEqual([
      { jsonrpc: "2.0", method: "a" },
      { jsonrpc: "2.0", method: "b" },
      { jsonrpc: "2.0", id: 1, result: { text: "héllo ✓" } },
    ]);
    expect(c.bad).toEqual([]);
  });

  it("reports a line that is not JSON-RPC and goes on; skips blank lines", () => {
    const c = collect();
    c.reader.push(Buffer.from('this is not json\n\n{"jsonrpc":"1.0","id":1,"method":"x"}\n{"jsonrpc":"2.0","id":2,"result":{}}\n'), handlersOf(c));
    expect(c.bad).toHaveLength(2);
    expect(c.bad[1]).toMatch(/jsonrpc is not "2.0"/);
    expect(c.messages).toEqual([{ jsonrpc: "2.0", id: 2, result: {} }]);
  });

  it("refuses a message that grows past the limit", () => {
    const c = collect(100);
    const h = handlersOf(c);
    c.reader.push(Buffer.from(`{"jsonrpc":"2.0","id":1,"result":{"text":"${"x".repeat(40)}`), h);
    expect(c.tooLong).toEqual([]);
    c.reader.push(Buffer.from("x".repeat(60)), h);
    expect(c.tooLong).toEqual(["a message from the server exceeded 100 bytes"]);
    expect(c.messages).toEqual([]);
  });
});
