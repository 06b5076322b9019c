// The stream-json input protocol against bad input: a line that is not JSON, a control request
// armature does not implement, an unknown permission mode — each gets a message or an error
// response, and the run goes on to answer the user message.
import { afterEach, describe, expect, it } from "vitest";
import { anthropicReply, startMockModelServer, type MockModelServer } from "../../../test/mock-model-server.js";
import { captureIO, useTestApiKey, withTempDir } from "../../../test/helpers.js";
import { main } from "../main.js";

let server: MockModelServer | undefined;
useTestApiKey();
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const line = (v: unknown): string => JSON.stringify(v);

describe("--input-format stream-json", () => {
  it("answers bad and unknown input without stopping, then runs the user message", async () => {
    await withTempDir(async (dir) => {
      server = await startMockModelServer([anthropicReply([{ type: "text", text: "still here" }])]);
      const stdin = [
        line({ type: "control_request", request_id: "init-1", request: { subtype: "initialize", hooks: { PreToolUse: [{ matcher: "(", hookCallbackIds: ["h1"] }] } } }),
        "this is not json",
        "[1, 2]",
        line({ type: "control_request", request_id: "r-unknown", request: { subtype: "rewind_files", user_message_id: "x" } }),
        line({ type: "control_request", request_id: "r-mode", request: { subtype: "set_permission_mode", mode: "yolo" } }),
        line({ type: "control_request", request_id: "r-mode-ok", request: { subtype: "set_permission_mode", mode: "acceptEdits" } }),
        line({ type: "control_request" }),
        line({ type: "user", message: { role: "user", content: "hello" }, parent_tool_use_id: null }),
        "",
      ].join("\n");
      const io = captureIO(stdin);
      const code = await main(["--output-format", "stream-json", "--verbose", "--input-format", "stream-json", "--cwd", dir, "--base-url", server.url, "--session-dir", `${dir}/s`, "--effort", "high"], io);
      expect(code, io.err).toBe(0);
      const out = io.out.trim().split("\n").map((l) => JSON.parse(l) as Json);
      const responses = new Map(out.filter((e) => e.type === "control_response").map((e) => [e.response.request_id, e.response]));
      expect(responses.get("init-1")).toMatchObject({ subtype: "success", response: { output_style: "default", hook_on_failure_supported: true } });
      expect(responses.get("r-unknown")).toMatchObject({ subtype: "error", error: expect.stringContaining("rewind_files") });
      expect(responses.get("r-mode")).toMatchObject({ subtype: "error", error: expect.stringContaining("yolo") });
      expect(responses.get("r-mode-ok")).toMatchObject({ subtype: "success", response: { mode: "acceptEdits" } });
      const init = out.find((e) => e.type === "system" && e.subtype === "init")!;
      expect(init.armature_ignored_flags).toEqual(["--effort"]);
      expect(out.at(-1)).toMatchObject({ type: "result", subtype: "success", result: "still here" });
      expect(io.err).toContain("not a JSON object");
      expect(io.err).toContain("initialize.hooks.PreToolUse");
      expect(server.requests).toHaveLength(1);
    });
  });

  it("refuses what it cannot honour with a message naming the flag", async () => {
    for (const [args, message] of [
      [["--input-format", "stream-json"], "--input-format stream-json needs --output-format stream-json"],
      [["--sdk-url", "wss://x"], "--sdk-url is not supported"],
      [["--permission-prompt-tool", "mcp__perm__ask", "--output-format", "stream-json", "--input-format", "stream-json"], "--permission-prompt-tool"],
      [["--settings", "{not json"], "--settings: not valid JSON"],
      [["--max-budget-usd", "-1", "-p", "x"], "--max-budget-usd"],
    ] as const) {
      const io = captureIO("");
      expect(await main([...args], io)).toBe(2);
      expect(io.err).toContain(message);
    }
  });
});
