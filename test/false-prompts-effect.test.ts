// Effect tests of the prompts removed next to their attack neighbours: run by bash, each attack
// really does its harm; through a session in default mode, with no rule or with a Read deny, it
// does not run, while its benign twin runs without a prompt; deciding it runs nothing of the
// project's.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bashUnderRules, textOf } from "./bash-helpers.js";

let root: string;
const saved = { sandbox: process.env.ARMATURE_SANDBOX };

/** A repository whose committed .env (and README) now differ from the last commit. */
function repo(name: string): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  const git = (...args: string[]): void => {
    execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], { cwd: dir, stdio: "ignore", env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1" } });
  };
  git("init", "-q", "-b", "main");
  writeFileSync(join(dir, "README.md"), "readme\n");
  writeFileSync(join(dir, ".env"), "SECRET=old\n");
  git("add", "-A");
  git("commit", "-qm", "init");
  writeFileSync(join(dir, "README.md"), "readme changed\n");
  writeFileSync(join(dir, ".env"), "SECRET=42\n");
  return dir;
}

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "armature-false-prompts-effect-")));
  process.env.ARMATURE_SANDBOX = "0";
});
afterAll(async () => {
  if (saved.sandbox === undefined) delete process.env.ARMATURE_SANDBOX;
  else process.env.ARMATURE_SANDBOX = saved.sandbox;
  await rm(root, { recursive: true, force: true });
});

describe("git trace to a file", () => {
  it("bash appends the trace to the named file; through a session it does not run", async () => {
    const dir = repo("trace");
    const bashTrace = join(root, "trace-by-bash");
    execFileSync("bash", ["-c", `GIT_TRACE=${bashTrace} git status`], { cwd: dir, stdio: "ignore" });
    expect(existsSync(bashTrace)).toBe(true);

    const trace = join(root, "trace-by-session");
    const result = await bashUnderRules(dir, {}, `GIT_TRACE=${trace} git status`);
    expect(result.is_error).toBe(true);
    expect(existsSync(trace)).toBe(false);
  });

  it("GIT_TRACE=1 runs without a prompt", async () => {
    const result = await bashUnderRules(repo("trace-stderr"), {}, "GIT_TRACE=1 git status --short");
    expect(result.is_error).toBeFalsy();
    expect(textOf(result)).toContain("README.md");
  });
});

describe("git diff --name-only | xargs cat", () => {
  it("bash prints the changed .env; with Read(./.env) denied the session does not run it", async () => {
    const dir = repo("xargs-denied");
    expect(execFileSync("bash", ["-c", "git diff --name-only | xargs cat"], { cwd: dir, encoding: "utf8" })).toContain("SECRET=42");
    const result = await bashUnderRules(dir, { deny: ["Read(./.env)"] }, "git diff --name-only | xargs cat");
    expect(result.is_error).toBe(true);
    expect(textOf(result)).not.toContain("SECRET=42");
  });

  it.each(["git diff --name-only | xargs cat", "git ls-files -m | xargs cat"])(
    "%s: a clean filter the repository's config names does not run while the call is decided",
    async (command) => {
      const dir = repo(`filter-${Math.random().toString(36).slice(2)}`);
      const marker = join(root, `filter-ran-${Math.random().toString(36).slice(2)}`);
      writeFileSync(join(dir, "same.txt"), "same\n");
      execFileSync("git", ["add", "same.txt"], { cwd: dir });
      execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "same"], { cwd: dir, stdio: "ignore" });
      writeFileSync(join(dir, ".gitattributes"), "* filter=evil\n");
      execFileSync("git", ["config", "filter.evil.clean", `touch ${marker}; cat`], { cwd: dir });
      // A file whose stat changed but not its contents: git hashes it through the filter to compare.
      const stale = (): void => utimesSync(join(dir, "same.txt"), new Date(2001, 0, 1), new Date(2001, 0, 1));
      stale();
      execFileSync("bash", ["-c", command], { cwd: dir, stdio: "ignore" });
      expect(existsSync(marker)).toBe(true);
      rmSync(marker);
      stale();
      const result = await bashUnderRules(dir, {}, command);
      expect(result.is_error).toBe(true);
      expect(existsSync(marker)).toBe(false);
    },
  );

  it("without the rule it runs without a prompt and prints the changed files", async () => {
    const result = await bashUnderRules(repo("xargs-allowed"), {}, "git diff --name-only | xargs cat");
    expect(result.is_error, textOf(result)).toBeFalsy();
    expect(textOf(result)).toContain("readme changed");
  });
});
