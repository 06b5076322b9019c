// The pure parts of the Bash tool: limits from the environment, the inline window, exit status
// meaning, working-directory containment, result text.
import { analyzeCommand } from "../../shell/index.js";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { withTempDir } from "../../../test/helpers.js";
import type { ShellCommandFacts } from "../../tool/types.js";
import { bashLimitsFromEnv, commandEnv, effectiveTimeout, resolveShell } from "./config.js";
import { interpretExitCode } from "./exit-code.js";
import { imageTypeOf, inlineFromParts } from "./output.js";
import { bashResultBlock, tidy, type BashOutput } from "./result.js";
import { shellQuote, wrapCommand } from "./run-shell.js";
import { isWithin, nextCwd } from "./working-dir.js";

describe("limits from the environment", () => {
  it.each([
    [{}, { defaultTimeoutMs: 120_000, maxTimeoutMs: 600_000, maxOutputChars: 30_000, maxOutputFileBytes: 1024 ** 3, maintainProjectWorkingDir: false }],
    [{ ARMATURE_BASH_MAX_OUTPUT_FILE_BYTES: "100000" }, { maxOutputFileBytes: 100_000 }],
    [{ ARMATURE_BASH_MAX_OUTPUT_FILE_BYTES: "0" }, { maxOutputFileBytes: 1024 ** 3 }],
    [{ BASH_DEFAULT_TIMEOUT_MS: "5000", BASH_MAX_TIMEOUT_MS: "9000" }, { defaultTimeoutMs: 5_000, maxTimeoutMs: 9_000 }],
    // the maximum is never below the default
    [{ BASH_DEFAULT_TIMEOUT_MS: "900000" }, { defaultTimeoutMs: 900_000, maxTimeoutMs: 900_000 }],
    // ARMATURE_ names win over the reference agent's
    [{ ARMATURE_BASH_DEFAULT_TIMEOUT_MS: "1000", BASH_DEFAULT_TIMEOUT_MS: "2000" }, { defaultTimeoutMs: 1_000 }],
    [{ BASH_MAX_OUTPUT_LENGTH: "999999" }, { maxOutputChars: 150_000 }],
    [{ BASH_MAX_OUTPUT_LENGTH: "abc", BASH_DEFAULT_TIMEOUT_MS: "-1" }, { maxOutputChars: 30_000, defaultTimeoutMs: 120_000 }],
    [{ CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR: "1" }, { maintainProjectWorkingDir: true }],
  ])("%j", (env, expected) => {
    expect(bashLimitsFromEnv(env)).toMatchObject(expected);
  });

  it("timeouts are clamped, background ones to their own ceiling", () => {
    const limits = bashLimitsFromEnv({});
    expect(effectiveTimeout(undefined, limits, false)).toBe(120_000);
    expect(effectiveTimeout(5_000_000, limits, false)).toBe(600_000);
    expect(effectiveTimeout(0.5, limits, false)).toBe(1);
    expect(effectiveTimeout(undefined, limits, true)).toBe(1_800_000);
    expect(effectiveTimeout(99_999_999, limits, true)).toBe(7_200_000);
  });

  it("the shell: option, then ARMATURE_SHELL, then bash", () => {
    expect(resolveShell("zsh", { ARMATURE_SHELL: "sh" })).toBe("zsh");
    expect(resolveShell(undefined, { ARMATURE_SHELL: "sh" })).toBe("sh");
    expect(resolveShell(undefined, {})).toBe("bash");
  });

  it("the command env: settings over the process, fixed variables over both", () => {
    const env = commandEnv({ PATH: "/bin", PAGER: "less", GIT_SSH_COMMAND: "ssh -i k" }, { PATH: "/x", ARMATURE: "0" });
    expect(env).toMatchObject({ PATH: "/x", PAGER: "cat", GIT_PAGER: "cat", GIT_EDITOR: "true", ARMATURE: "1", GIT_TERMINAL_PROMPT: "0", GIT_SSH_COMMAND: "ssh -i k" });
    expect(commandEnv({}, {}).GIT_SSH_COMMAND).toBe("ssh -o BatchMode=yes");
  });
});

describe("the wrapper script", () => {
  it("quotes the cwd file for the shell", () => {
    expect(shellQuote("/a b/it's")).toBe(`'/a b/it'\\''s'`);
    expect(wrapCommand("ls", "/tmp/x y")).toBe(`trap 'pwd -P >| '/tmp/x y' 2>/dev/null' EXIT; ls`);
  });
});

describe("the inline window", () => {
  it("whole when it fits; head + marker + tail when it does not", () => {
    expect(inlineFromParts(Buffer.from("hello"), undefined, 5, 1000, "/out")).toEqual({ text: "hello", omittedBytes: 0, truncated: false });
    const t = inlineFromParts(Buffer.from("a".repeat(4000)), Buffer.from("b".repeat(4000)), 1_000_000, 1000, "/out");
    expect(t.truncated).toBe(true);
    expect(t.text.startsWith("a".repeat(300))).toBe(true);
    expect(t.text.endsWith("b".repeat(300))).toBe(true);
    expect(t.text).toContain("/out");
    expect(t.text).toMatch(/\d+\.\d KB of output omitted here/);
    expect(t.text.length).toBeLessThanOrEqual(1000);
  });

  it("a whole part that is too long is cut head and tail", () => {
    const t = inlineFromParts(Buffer.from("x".repeat(1500) + "y".repeat(1500)), undefined, 3000, 1000, undefined);
    expect(t.truncated).toBe(true);
    expect(t.text.startsWith("x")).toBe(true);
    expect(t.text.endsWith("y")).toBe(true);
    expect(t.text).toContain("The full output was 2.9 KB");
  });

  it.each([
    [[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], "image/png"],
    [[0xff, 0xd8, 0xff, 0xe0], "image/jpeg"],
    [[...Buffer.from("GIF89a")], "image/gif"],
    [[...Buffer.from("RIFF"), 0, 0, 0, 0, ...Buffer.from("WEBP")], "image/webp"],
    [[...Buffer.from("PNG image")], undefined],
    [[...Buffer.from("RIFF....WAVE")], undefined],
  ])("magic bytes %j → %s", (bytes, type) => {
    expect(imageTypeOf(Buffer.from(bytes))).toBe(type);
  });
});

function facts(...subs: Array<[string, boolean?]>): ShellCommandFacts {
  return {
    command: subs.map((s) => s[0]).join(" ; "),
    subcommands: subs.map(([effective, nested]) => ({ argv: effective.split(" "), text: effective, effective, nested: nested ?? false, env: {}, redirects: [] })),
    writeTargets: [],
    readTargets: [],
    cdTargets: [],
    readOnly: true,
    complete: true,
    reasons: [],
  };
}

describe("exit status meaning", () => {
  it.each<[number | null, ShellCommandFacts | undefined, boolean]>([
    [0, facts(["false"]), false],
    [1, facts(["grep x f"]), false],
    [1, facts(["/usr/bin/grep x f"]), false],
    [1, facts(["egrep x f"]), false],
    [1, facts(["rg x"]), false],
    [1, facts(["cat f"], ["grep x"]), false],
    [1, facts(["grep x f"], ["echo done"]), true],
    [1, facts(["git diff --exit-code"]), false],
    [1, facts(["git grep x"]), false],
    [1, facts(["git status"]), true],
    [1, facts(["find . -name x"]), false],
    [1, facts(["test -f x"]), false],
    [1, facts(["[ -f x ]"]), false],
    // a nested grep is not what the shell returns
    [1, facts(["echo $(grep x f)"], ["grep x f", true]), true],
    [2, facts(["grep x f"]), true],
    [1, facts(), true],
    [1, undefined, true],
    [null, facts(["grep x"]), true],
    [143, facts(["sleep 5"]), true],
  ])("exit %s of %j → error %s", (code, f, isError) => {
    expect(interpretExitCode(code, f).isError).toBe(isError);
  });

  // Read from the analysis's facts: wrappers removed, git's own options skipped, any spacing.
  it.each<[string, boolean]>([
    ["timeout 5 grep x f", false],
    ["git -C sub diff --quiet", false],
    ["git  -c core.pager=cat  grep x", false],
    ["git -C sub status", true],
    ["cat f | grep -q x", false],
    ["grep x f; echo done", true],
  ])("exit 1 of `%s` → error %s", (command, isError) => {
    expect(interpretExitCode(1, analyzeCommand(command)).isError).toBe(isError);
  });
});

describe("working directory containment", () => {
  it.each([
    ["/proj", "/proj", true],
    ["/proj/a/b", "/proj", true],
    ["/proj-evil", "/proj", false],
    ["/proj/../etc", "/proj", false],
    ["/", "/proj", false],
    ["/proj/..foo", "/proj", true],
  ])("%s inside %s: %s", (path, dir, inside) => {
    expect(isWithin(path, dir)).toBe(inside);
  });

  it("nextCwd follows symlinks to decide and never trusts a path that is not a directory", async () => {
    await withTempDir(async (root) => {
      const proj = join(root, "proj");
      mkdirSync(join(proj, "sub"), { recursive: true });
      symlinkSync("/etc", join(proj, "etc-link"));
      const dirs = { projectDir: proj, additionalDirectories: [] };
      expect(nextCwd(join(proj, "sub"), proj, dirs)).toEqual({ cwd: join(proj, "sub") });
      expect(nextCwd(join(proj, "etc-link"), proj, dirs).notice).toContain("Shell cwd was reset");
      expect(nextCwd(join(proj, "missing"), join(proj, "sub"), dirs)).toEqual({ cwd: join(proj, "sub") });
      expect(nextCwd("relative/path", proj, dirs)).toEqual({ cwd: proj });
      expect(nextCwd(undefined, join(proj, "sub"), dirs)).toEqual({ cwd: join(proj, "sub") });
    });
  });
});

function output(extra: Partial<BashOutput>): BashOutput {
  return {
    stdout: "",
    stderr: "",
    output: "",
    exitCode: 0,
    interrupted: false,
    timedOut: false,
    timeoutMs: 120_000,
    outputBytes: 0,
    truncated: false,
    isError: false,
    cwd: "/p",
    sandboxed: false,
    notices: [],
    durationMs: 1,
    ...extra,
  };
}

describe("result text", () => {
  it.each<[Partial<BashOutput>, string, boolean]>([
    [{ output: "hi\n" }, "hi", false],
    [{}, "(Bash completed with no output)", false],
    [{ exitCode: 2, isError: true, output: "boom\n" }, "Exit code 2\nboom", true],
    [{ exitCode: 1, isError: true }, "Exit code 1", true],
    [{ exitCode: 1, returnCodeInterpretation: "No matches found" }, "(Bash completed with no output)\n(exit code 1: No matches found)", false],
    [{ interrupted: true, exitCode: 143, output: "part" }, "part\n<error>Command was aborted before completion</error>", true],
    [{ output: "x", notices: ["Shell cwd was reset to /p"] }, "x\nShell cwd was reset to /p", false],
  ])("%j", (data, text, isError) => {
    const block = bashResultBlock(output(data), "id");
    expect(block.content).toBe(text);
    expect(block.is_error === true).toBe(isError);
  });

  it("tidy removes leading blank lines and trailing whitespace only", () => {
    expect(tidy("\n \n  a\n b \n\n")).toBe("  a\n b");
  });
});
