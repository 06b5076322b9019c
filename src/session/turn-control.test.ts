// How a host drives a session: an abort reaches whatever a turn waits on (an approver, a hook
// runner), close() never waits on them, turns started at once run in order (reads together,
// writes alone), and checkPermission says what a call would get without running it. Real bash,
// real temp dirs; the effects are checked on disk.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { emptyHookOutcome, type HookRunner } from "../hooks/types.js";
import type { ApprovalRequest } from "../permissions/types.js";
import { buildTool } from "../tool/build-tool.js";
import { builtinTools } from "../tools/index.js";
import { toolUse, withTempDir } from "../../test/helpers.js";
import { TurnGate } from "./turn-gate.js";
import { createSession } from "./session.js";

const text = (content: unknown): string => (typeof content === "string" ? content : JSON.stringify(content));

/** An approver that never answers, recording what it was asked. */
function silentApprover(): { approver: (r: ApprovalRequest) => Promise<never>; asked: ApprovalRequest[]; firstAsk: Promise<void> } {
  const asked: ApprovalRequest[] = [];
  let notify!: () => void;
  const firstAsk = new Promise<void>((resolve) => (notify = resolve));
  return {
    asked,
    firstAsk,
    approver: (r) => {
      asked.push(r);
      notify();
      return new Promise<never>(() => {});
    },
  };
}

describe("an abort reaches what a turn waits on", () => {
  it("a pending approval: the turn settles as interrupted, the approver sees the abort, nothing runs", async () => {
    await withTempDir(async (dir) => {
      const { approver, asked, firstAsk } = silentApprover();
      const session = createSession({ cwd: dir, tools: builtinTools(), canUseTool: approver });
      const controller = new AbortController();
      const turn = session.runTurn([toolUse("Bash", { command: "touch marker" }, "a")], { signal: controller.signal });
      await firstAsk;
      const started = Date.now();
      controller.abort();
      const [result] = await turn;
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(result!.is_error).toBe(true);
      expect(text(result!.content)).toContain("Bash was interrupted while waiting for approval");
      expect(asked[0]!.signal.aborted).toBe(true);
      expect(existsSync(join(dir, "marker"))).toBe(false);
      await session.close();
    });
  });

  it("close() does not wait on an approver that never answers", async () => {
    await withTempDir(async (dir) => {
      const { approver, firstAsk } = silentApprover();
      const session = createSession({ cwd: dir, tools: builtinTools(), canUseTool: approver });
      const turn = session.runTurn([toolUse("Bash", { command: "touch marker" }, "a")]);
      await firstAsk;
      const started = Date.now();
      await session.close();
      expect(Date.now() - started).toBeLessThan(1_000);
      const [result] = await turn;
      expect(text(result!.content)).toContain("interrupted while waiting for approval");
      expect(existsSync(join(dir, "marker"))).toBe(false);
    });
  });

  it("a hook runner that ignores its signal: the turn still settles, the call does not run", async () => {
    await withTempDir(async (dir) => {
      let signalSeen: AbortSignal | undefined;
      const hooks: HookRunner = {
        has: (event) => event === "PreToolUse",
        run: (_event, _input, _match, signal) => {
          signalSeen = signal;
          return new Promise(() => {});
        },
      };
      const session = createSession({ cwd: dir, tools: builtinTools(), hooks, allow: ["Bash(touch *)"] });
      const controller = new AbortController();
      const turn = session.runTurn([toolUse("Bash", { command: "touch marker" }, "a")], { signal: controller.signal });
      await new Promise((r) => setTimeout(r, 50));
      controller.abort();
      const [result] = await turn;
      expect(text(result!.content)).toContain("interrupted while waiting for its PreToolUse hooks");
      expect(signalSeen?.aborted).toBe(true);
      expect(existsSync(join(dir, "marker"))).toBe(false);
      await session.close();
    });
  });

  it("a PermissionRequest hook gets the turn's signal", async () => {
    await withTempDir(async (dir) => {
      const signals: Array<AbortSignal | undefined> = [];
      const hooks: HookRunner = {
        has: (event) => event === "PermissionRequest",
        run: async (_event, _input, _match, signal) => {
          signals.push(signal);
          return { ...emptyHookOutcome(), permissionDecision: "deny", permissionDecisionReason: "no" };
        },
      };
      const session = createSession({ cwd: dir, tools: builtinTools(), hooks });
      const [result] = await session.runTurn([toolUse("Bash", { command: "touch marker" }, "a")]);
      expect(result!.is_error).toBe(true);
      expect(signals[0]).toBeInstanceOf(AbortSignal);
      await session.close();
    });
  });
});

describe("turns started at once on one session", () => {
  it("writing turns run one after another, in the order they were started", async () => {
    await withTempDir(async (dir) => {
      const session = createSession({ cwd: dir, tools: builtinTools(), allow: ["Bash"] });
      const turns = [1, 2, 3].map((n) =>
        session.runTurn([toolUse("Bash", { command: `echo start-${n} >> log; sleep 0.1; echo end-${n} >> log` }, `t${n}`)]),
      );
      const results = await Promise.all(turns);
      expect(results.every(([r]) => r!.is_error !== true)).toBe(true);
      expect(readFileSync(join(dir, "log"), "utf8").trim().split("\n")).toEqual(["start-1", "end-1", "start-2", "end-2", "start-3", "end-3"]);
      await session.close();
    });
  });

  it("read-only turns run together; a writing turn waits for them and they for it", async () => {
    await withTempDir(async (dir) => {
      let running = 0;
      let most = 0;
      const events: string[] = [];
      const probe = (name: string, safe: boolean) =>
        buildTool({
          name,
          description: `${name} probe`,
          inputSchema: z.object({ tag: z.string() }),
          isReadOnly: () => safe,
          isConcurrencySafe: () => safe,
          call: async ({ tag }) => {
            running++;
            most = Math.max(most, running);
            events.push(`start ${tag}`);
            await new Promise((r) => setTimeout(r, 40));
            events.push(`end ${tag}`);
            running--;
            return { data: tag };
          },
        });
      const session = createSession({ cwd: dir, tools: [probe("Look", true), probe("Change", false)], allow: ["Look", "Change"] });
      await Promise.all([
        session.runTurn([toolUse("Look", { tag: "r1" })]),
        session.runTurn([toolUse("Look", { tag: "r2" })]),
        session.runTurn([toolUse("Change", { tag: "w" })]),
        session.runTurn([toolUse("Look", { tag: "r3" })]),
      ]);
      expect(events.slice(0, 2).sort()).toEqual(["start r1", "start r2"]);
      expect(events.indexOf("start w")).toBeGreaterThan(Math.max(events.indexOf("end r1"), events.indexOf("end r2")));
      expect(events.indexOf("start r3")).toBeGreaterThan(events.indexOf("end w"));
      expect(most).toBe(2);
      await session.close();
    });
  });

  it("a waiting turn whose signal aborts leaves the line at once and runs nothing", async () => {
    await withTempDir(async (dir) => {
      const session = createSession({ cwd: dir, tools: builtinTools(), allow: ["Bash"] });
      const first = session.runTurn([toolUse("Bash", { command: "sleep 0.4; echo done > first" }, "a")]);
      const controller = new AbortController();
      const second = session.runTurn([toolUse("Bash", { command: "touch second" }, "b")], { signal: controller.signal });
      await new Promise((r) => setTimeout(r, 50));
      const started = Date.now();
      controller.abort();
      const [r2] = await second;
      expect(Date.now() - started).toBeLessThan(300);
      expect(r2!.is_error).toBe(true);
      expect(text(r2!.content)).toContain("was not started");
      const [r1] = await first;
      expect(r1!.is_error).not.toBe(true);
      expect(existsSync(join(dir, "first"))).toBe(true);
      expect(existsSync(join(dir, "second"))).toBe(false);
      await session.close();
    });
  });

  it("a streamed turn runs alone too", async () => {
    await withTempDir(async (dir) => {
      const session = createSession({ cwd: dir, tools: builtinTools(), allow: ["Bash"] });
      const first = session.runTurn([toolUse("Bash", { command: "echo a1 >> log; sleep 0.1; echo a2 >> log" }, "a")]);
      const streamed = (async () => {
        for await (const _event of session.stream([toolUse("Bash", { command: "echo b >> log" }, "b")])) void _event;
      })();
      await Promise.all([first, streamed]);
      expect(readFileSync(join(dir, "log"), "utf8")).toBe("a1\na2\nb\n");
      await session.close();
    });
  });
});

describe("TurnGate", () => {
  it("first come first served, shared beside shared, exclusive alone, an undecided place holds the line", async () => {
    const gate = new TurnGate();
    const signal = new AbortController().signal;
    const order: string[] = [];
    const t1 = gate.reserve(signal);
    const t2 = gate.reserve(signal);
    const tw = gate.reserve(signal);
    const t3 = gate.reserve(signal);
    const r2 = t2.admit(true) as Promise<() => void>;
    expect(r2).toBeInstanceOf(Promise); // t1 has not said yet what it is
    const r1 = t1.admit(true);
    expect(typeof r1).toBe("function");
    const release2 = await r2;
    const w = tw.admit(false) as Promise<() => void>;
    const r3 = t3.admit(true) as Promise<() => void>;
    void w.then(() => order.push("w"));
    void r3.then(() => order.push("r3"));
    expect(gate.size).toBe(4);
    (r1 as () => void)();
    await Promise.resolve();
    expect(order).toEqual([]);
    release2();
    (await w)();
    (await r3)();
    expect(order).toEqual(["w", "r3"]);
    expect(gate.size).toBe(0);
  });

  it("a cancelled place lets the line move", async () => {
    const gate = new TurnGate();
    const signal = new AbortController().signal;
    const t1 = gate.reserve(signal);
    const t2 = gate.reserve(signal);
    const r2 = t2.admit(false);
    t1.cancel();
    expect(typeof (await r2)).toBe("function");
  });
});

describe("session.checkPermission", () => {
  it("says what a call would get, without running it or asking anyone", async () => {
    await withTempDir(async (dir) => {
      const { approver, asked } = silentApprover();
      const session = createSession({ cwd: dir, tools: builtinTools(), canUseTool: approver, allow: ["Bash(echo *)"], deny: ["Bash(curl *)"] });
      const cases: Array<[string, unknown, string]> = [
        ["Bash", { command: "echo hi > out" }, "allow"],
        ["Bash", { command: "touch marker" }, "ask"],
        ["Bash", { command: "curl http://127.0.0.1:9/x" }, "deny"],
        ["Read", { file_path: join(dir, "a.txt") }, "allow"],
        ["Write", { file_path: join(dir, "marker2"), content: "x" }, "ask"],
        ["Nope", {}, "invalid"],
        ["Bash", { command: 3 }, "invalid"],
      ];
      for (const [name, input, behavior] of cases) {
        const check = await session.checkPermission(toolUse(name, input));
        expect(check.behavior, `${name} ${JSON.stringify(input)}: ${check.reason}`).toBe(behavior);
      }
      expect(asked).toEqual([]);
      expect(existsSync(join(dir, "out"))).toBe(false);
      expect(existsSync(join(dir, "marker"))).toBe(false);
      expect(existsSync(join(dir, "marker2"))).toBe(false);
      await session.close();
    });
  });
});
