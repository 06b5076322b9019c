import { describe, expect, it } from "vitest";
import { createSubagentContext, createToolUseContext } from "./context.js";

describe("createSubagentContext", () => {
  const parent = createToolUseContext({ cwd: "/tmp", permissionMode: "default" });
  parent.readFileState.set("/tmp/a", { contentHash: "h", mtimeMs: 1, partial: false, recordedAt: 0 });
  parent.messages.push({ role: "user", content: "hi" });
  const child = createSubagentContext(parent, { agentId: "sub1", permissionMode: "bubble" });

  it("aborting the parent aborts the child, not the other way round", () => {
    const p = createToolUseContext({ cwd: "/tmp" });
    const c1 = createSubagentContext(p);
    const c2 = createSubagentContext(p);
    c1.abortController.abort();
    expect(p.abortController.signal.aborted).toBe(false);
    expect(c2.abortController.signal.aborted).toBe(false);
    p.abortController.abort();
    expect(c2.abortController.signal.aborted).toBe(true);
  });

  it("gets a copy of the read-file state", () => {
    expect(child.readFileState.get("/tmp/a")?.contentHash).toBe("h");
    child.readFileState.set("/tmp/b", { contentHash: "x", mtimeMs: 1, partial: false, recordedAt: 0 });
    expect(parent.readFileState.has("/tmp/b")).toBe(false);
  });

  it("has its own conversation, denials, cwd and agent id; shares the session", () => {
    expect(child.messages).toEqual([]);
    expect(child.denials).not.toBe(parent.denials);
    child.workspace.cwd = "/";
    expect(parent.workspace.cwd).toBe("/tmp");
    expect(child.agent).toEqual({ agentId: "sub1", parentAgentId: undefined, depth: 1 });
    expect(child.session).toBe(parent.session);
    expect(child.permissionContext.mode).toBe("bubble");
  });

  it("never gains bypassPermissions the parent does not have", () => {
    expect(createSubagentContext(parent, { permissionMode: "bypassPermissions" }).permissionContext.mode).toBe("default");
  });

  it("the read-file state is a bounded LRU", () => {
    const ctx = createToolUseContext({ cwd: "/" });
    const small = ctx.readFileState.clone();
    for (let i = 0; i < 600; i++) small.set(`/f${i}`, { contentHash: "", mtimeMs: 0, partial: false, recordedAt: 0 });
    expect(small.size).toBe(500);
    expect(small.has("/f0")).toBe(false);
    expect(small.has("/f599")).toBe(true);
  });
});
