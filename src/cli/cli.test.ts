import { spawnSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { withTempDir, captureIO } from "../../test/helpers.js";
import { main } from "./main.js";

const io = captureIO;

describe("armature exec", () => {
  it("prints one line per turn, results in tool_use order", async () => {
    const turns = [
      JSON.stringify([{ type: "tool_use", id: "a", name: "Missing", input: {} }]),
      JSON.stringify({ role: "assistant", tool_calls: [{ id: "b", type: "function", function: { name: "Missing", arguments: "{}" } }] }),
    ].join("\n");
    const c = io(turns);
    expect(await main(["exec"], c)).toBe(0);
    const lines = c.out.trim().split("\n").map((l) => JSON.parse(l));
    expect(lines[0]).toEqual({ role: "user", content: [{ type: "tool_result", tool_use_id: "a", is_error: true, content: "<tool_use_error>Error: No such tool available: Missing</tool_use_error>" }] });
    expect(lines[1]).toEqual([{ role: "tool", tool_call_id: "b", content: "<tool_use_error>Error: No such tool available: Missing</tool_use_error>" }]);
  });

  it("--format overrides the input's shape", async () => {
    const c = io(JSON.stringify([{ type: "tool_use", id: "a", name: "Missing", input: {} }]));
    expect(await main(["exec", "--format", "openai"], c)).toBe(0);
    expect(JSON.parse(c.out)[0].role).toBe("tool");
  });

  it.each([
    [["exec", "--mode", "yolo"], /--mode must be one of/],
    [["exec", "--format", "xml"], /--format must be anthropic or openai/],
    [["exec", "--max-concurrency", "0"], /--max-concurrency must be a whole number/],
    [["exec", "--deny", "Bash(oops"], /--deny: "Bash\(oops": the specifier must end/],
    [["exec", "--bogus"], /Unknown option '--bogus'/],
    [["exec", "/nonexistent/turns.jsonl"], /cannot read the input file \/nonexistent\/turns.jsonl/],
    [["frobnicate"], /unknown command "frobnicate"/],
  ])("bad arguments exit 2 with a message naming the flag: %j", async (argv, message) => {
    const c = io("[]");
    expect(await main(argv, c)).toBe(2);
    expect(c.err).toMatch(message);
    expect(c.out).toBe("");
  });

  it("a line that is not JSON names the line and runs nothing", async () => {
    const c = io(`${JSON.stringify([{ type: "tool_use", id: "a", name: "Missing", input: {} }])}\n{oops\n`);
    expect(await main(["exec", "-"], c)).toBe(2);
    expect(c.err).toContain("stdin: line 2: not JSON");
    expect(c.out).toBe("");
  });

  it("--settings errors name the file and key", async () => {
    await withTempDir(async (dir) => {
      const file = join(dir, "s.json");
      await writeFile(file, JSON.stringify({ permissions: { allow: "Bash" } }));
      const c = io("[]");
      expect(await main(["exec", "--settings", file], c)).toBe(2);
      expect(c.err).toContain(`${file}: permissions.allow: Invalid input: expected array`);
    });
  });

  it("runs as a real process through bin/armature.js", () => {
    const r = spawnSync(process.execPath, ["bin/armature.js", "exec", "-"], {
      input: JSON.stringify([{ type: "tool_use", id: "a", name: "Missing", input: {} }]),
      encoding: "utf8",
    });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).content[0].tool_use_id).toBe("a");
  });
});

describe("papercuts", () => {
  it("--version prints the version from package.json", async () => {
    const { readFileSync } = await import("node:fs");
    const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { name: string; version: string };
    const c = io();
    expect(await main(["--version"], c)).toBe(0);
    expect(c.out).toBe(`armature ${pkg.version} (npm package ${pkg.name})\n`);
    expect(pkg.name).not.toBe("armature"); // that npm name is someone else's package
  });

  it("exec on a terminal with no FILE says it waits for JSON Lines on stdin", async () => {
    const c = io("");
    c.stdinIsTTY = true;
    expect(await main(["exec"], c)).toBe(0);
    expect(c.err).toContain("waiting for JSON Lines on stdin");
    const piped = io("");
    expect(await main(["exec"], piped)).toBe(0);
    expect(piped.err).toBe("");
  });
});

describe("interactive approvals", () => {
  it("--interactive without a terminal is a usage error", async () => {
    const c = io("[]");
    expect(await main(["exec", "--interactive"], c)).toBe(2);
    expect(c.err).toContain("--interactive needs a terminal");
  });

  it("the terminal approver maps y / n / always and asks again on anything else", async () => {
    const { terminalApprover } = await import("./prompt.js");
    const answers = ["maybe", "a", "y", "", "n"];
    const asked: string[] = [];
    const approver = terminalApprover({ ...io(), isTTY: true, question: async (p) => (asked.push(p), answers.shift()!) });
    const request = { toolUse: { type: "tool_use" as const, id: "x", name: "Bash", input: {} }, tool: { name: "Bash" } as never, input: { command: "rm -rf build" }, decision: { behavior: "ask" as const, reason: "Bash needs approval", rule: null, source: null }, signal: new AbortController().signal };
    expect(await approver(request)).toEqual({ behavior: "allow", remember: "session" });
    expect(asked).toHaveLength(2);
    expect(asked[0]).toContain("Bash(rm -rf build)\nBash needs approval");
    expect(await approver(request)).toEqual({ behavior: "allow" });
    expect((await approver(request)).behavior).toBe("deny");
    expect((await approver(request)).behavior).toBe("deny");
  });
});

describe("armature exec with hooks from settings", () => {
  it("runs the project's hooks; an `if` rule is matched like a permission rule", async () => {
    await withTempDir(async (dir) => {
      const { mkdir } = await import("node:fs/promises");
      await mkdir(join(dir, ".armature"));
      await writeFile(
        join(dir, ".armature", "settings.json"),
        JSON.stringify({
          permissions: { allow: ["Bash(rm *)", "Bash(echo *)"] },
          hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "echo 'no rm here' >&2; exit 2", if: "Bash(rm *)" }] }] },
        }),
      );
      const c = io(JSON.stringify([
        { type: "tool_use", id: "a", name: "Bash", input: { command: "rm -f nothing.txt" } },
        { type: "tool_use", id: "b", name: "Bash", input: { command: "echo hi" } },
      ]));
      expect(await main(["exec", "--cwd", dir, "--trust-project"], c)).toBe(0);
      const [a, b] = JSON.parse(c.out).content;
      expect(a).toMatchObject({ is_error: true, content: "<tool_use_error>PreToolUse hook blocked this call: no rm here</tool_use_error>" });
      expect(b).toMatchObject({ content: "hi" });
    });
  });

  it("a guard hook's `if` is not skipped for words not known before the command runs", async () => {
    await withTempDir(async (dir) => {
      const { mkdir } = await import("node:fs/promises");
      const { existsSync } = await import("node:fs");
      await mkdir(join(dir, ".armature"));
      await writeFile(
        join(dir, ".armature", "settings.json"),
        JSON.stringify({
          permissions: { allow: ["Bash(touch *)", "Bash(for *)", "Bash(echo *)"] },
          hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "echo 'no touch here' >&2; exit 2", if: "Bash(touch PWNED*)" }] }] },
        }),
      );
      const c = io(JSON.stringify([
        { type: "tool_use", id: "a", name: "Bash", input: { command: "f=PWNED1; touch $f" } },
        { type: "tool_use", id: "b", name: "Bash", input: { command: "for f in $(echo PWNED2); do touch \"$f\"; done" } },
        { type: "tool_use", id: "c", name: "Bash", input: { command: "echo PWNED3 | xargs touch" } },
        { type: "tool_use", id: "d", name: "Bash", input: { command: "touch OK" } },
      ]));
      expect(await main(["exec", "--cwd", dir, "--trust-project", "--mode", "bypassPermissions"], c)).toBe(0);
      const [a, b, d, ok] = JSON.parse(c.out).content;
      for (const r of [a, b, d]) expect(r).toMatchObject({ is_error: true, content: expect.stringContaining("no touch here") });
      expect(ok.is_error ?? false).toBe(false);
      for (const f of ["PWNED1", "PWNED2", "PWNED3"]) expect(existsSync(join(dir, f))).toBe(false);
      expect(existsSync(join(dir, "OK"))).toBe(true);
    });
  });

  it("an invalid hook configuration names the file and the key", async () => {
    await withTempDir(async (dir) => {
      const { mkdir } = await import("node:fs/promises");
      await mkdir(join(dir, ".armature"));
      const file = join(dir, ".armature", "settings.json");
      await writeFile(file, JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ type: "command", command: "true", timeout: -1 }] }] } }));
      const c = io("[]");
      expect(await main(["exec", "--cwd", dir, "--trust-project"], c)).toBe(2);
      expect(c.err).toContain(file);
      expect(c.err).toContain("hooks.PreToolUse[0].hooks[0].timeout");
    });
  });
});

describe("armature exec session files and notices", () => {
  it("keeps the files its results point to, and reports hook problems on stderr", async () => {
    await withTempDir(async (dir) => {
      const { mkdir, readFile: read } = await import("node:fs/promises");
      await mkdir(join(dir, ".armature"));
      await writeFile(join(dir, ".armature", "settings.json"), JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ type: "command", command: "echo oops >&2; exit 1" }] }] } }));
      const sessionDir = join(dir, "state");
      const c = io(JSON.stringify([{ type: "tool_use", id: "a", name: "Bash", input: { command: "seq 1 100000" } }]));
      expect(await main(["exec", "--cwd", dir, "--trust-project", "--session-dir", sessionDir], c)).toBe(0);
      const text = JSON.parse(c.out).content[0].content as string;
      const path = /(\/\S+\.output)/.exec(text)![1]!;
      expect(path.startsWith(sessionDir)).toBe(true);
      expect((await read(path, "utf8")).split("\n")[99_999]).toBe("100000");
      expect(c.err).toContain("oops");
    });
  });

  it("--session-dir that cannot be a folder is a usage error", async () => {
    const c = io("[]");
    expect(await main(["exec", "--session-dir", "/etc/passwd/x"], c)).toBe(2);
    expect(c.err).toContain("--session-dir: cannot use /etc/passwd/x as a folder");
  });

  it("--cwd that is not a directory is a usage error", async () => {
    const c = io("[]");
    expect(await main(["exec", "--cwd", "/nonexistent/dir"], c)).toBe(2);
    expect(c.err).toContain("--cwd: /nonexistent/dir is not a directory");
  });
});
