// Issue 19: what the read narrowing judges (git's listing, the directories below a root) is
// gathered before a session's decision without holding up the event loop, and the call's abort
// stops it; the decision then runs nothing of its own and judges what was gathered.
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { namedTool, request } from "./permission-helpers.js";
import type { ReadNarrowingEvidence } from "../src/tool/types.js";

// armature starts its own git only from the system's root-owned folders (a PATH entry the project
// controls is never taken; trusted-executable's tests show it). The test's git, which waits for a
// gate, stands in for the system's: the lookup of "git" answers with it, every other name as usual.
vi.mock("../src/sandbox/trusted-executable.js", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../src/sandbox/trusted-executable.js")>();
  return {
    ...actual,
    trustedExecutable: (name: string, env?: Readonly<Record<string, string | undefined>>) =>
      name === "git" && process.env.ARMATURE_TEST_GIT ? process.env.ARMATURE_TEST_GIT : actual.trustedExecutable(name, env),
  };
});
// The setup files loaded the engine before this file's mock: load it again, with the mock.
vi.resetModules();
const { resolvePermission } = await import("../src/permissions/resolve.js");
const { directoriesBelow, directoriesBelowSync, evidenceKey, readNarrowingEvidence } = await import("../src/permissions/read-narrowing.js");
const { analyzeCommand, ensureBashGrammar } = await import("../src/shell/index.js");


let root: string;
let proj: string;
const saved = { PATH: process.env.PATH, sandbox: process.env.ARMATURE_SANDBOX };

beforeAll(async () => {
  await ensureBashGrammar();
  root = await realpath(await mkdtemp(join(tmpdir(), "armature-narrow-async-")));
  proj = join(root, "proj");
  const bin = join(root, "bin");
  mkdirSync(join(proj, "src"), { recursive: true });
  mkdirSync(bin);
  writeFileSync(join(proj, "src/a.ts"), "// TODO\n");
  writeFileSync(join(proj, ".env"), "SECRET=1\n");
  for (let i = 0; i < 300; i++) mkdirSync(join(proj, "tree", `d${i}`, "e"), { recursive: true });
  // A git outside the project, first on PATH: `rev-parse` prints the project, `ls-files` waits
  // for a gate file only the test's timer creates, then lists src/a.ts.
  writeFileSync(
    join(bin, "git"),
    ["#!/bin/sh", 'case "$*" in', `  *rev-parse*) echo "${proj}" ;;`, '  *ls-files*) : > "$NARROW_STARTED"; while [ ! -e "$NARROW_GATE" ]; do sleep 0.01; done; printf "src/a.ts\\0" ;;', "  *) exit 1 ;;", "esac", ""].join("\n"),
  );
  chmodSync(join(bin, "git"), 0o755);
  process.env.PATH = `${bin}:${saved.PATH ?? ""}`;
  process.env.ARMATURE_TEST_GIT = join(bin, "git");
  process.env.ARMATURE_SANDBOX = "0"; // the fake git writes where the test reads
});

afterAll(async () => {
  process.env.PATH = saved.PATH;
  delete process.env.ARMATURE_TEST_GIT;
  if (saved.sandbox === undefined) delete process.env.ARMATURE_SANDBOX;
  else process.env.ARMATURE_SANDBOX = saved.sandbox;
  delete process.env.NARROW_GATE;
  delete process.env.NARROW_STARTED;
  await rm(root, { recursive: true, force: true });
});

function gate(name: string): { gate: string; started: string } {
  const files = { gate: join(root, `${name}.gate`), started: join(root, `${name}.started`) };
  process.env.NARROW_GATE = files.gate;
  process.env.NARROW_STARTED = files.started;
  return files;
}

describe("read narrowing evidence", () => {
  it("lists git's paths while the event loop turns: only a timer opens the gate git waits for", async () => {
    const files = gate("loop");
    let ticks = 0;
    const timer = setInterval(() => {
      ticks++;
      if (existsSync(files.started)) writeFileSync(files.gate, "");
    }, 5);
    try {
      const evidence = await readNarrowingEvidence(analyzeCommand("git grep TODO"), proj, process.env);
      expect(ticks).toBeGreaterThan(0);
      expect(evidence?.git[evidenceKey("index", proj)]).toEqual({ top: proj, paths: ["src/a.ts"] });
    } finally {
      clearInterval(timer);
    }
  });

  it("the call's abort stops a git that waits, and leaves no evidence", async () => {
    const files = gate("abort");
    const controller = new AbortController();
    const timer = setInterval(() => {
      if (existsSync(files.started)) controller.abort();
    }, 5);
    try {
      expect(await readNarrowingEvidence(analyzeCommand("git grep TODO"), proj, process.env, controller.signal)).toBeUndefined();
      expect(existsSync(files.gate)).toBe(false);
    } finally {
      clearInterval(timer);
    }
  });

  it("walks directories asynchronously, as the sync walk does, and stops on abort", async () => {
    let fired = false;
    setTimeout(() => (fired = true), 0);
    const dirs = await directoriesBelow(proj);
    expect(fired).toBe(true);
    expect(dirs?.sort()).toEqual(directoriesBelowSync(proj)?.sort());
    expect(dirs?.length).toBeGreaterThan(600);
    const controller = new AbortController();
    controller.abort();
    expect(await directoriesBelow(proj, controller.signal)).toBeUndefined();
    expect((await readNarrowingEvidence(analyzeCommand("find . -name x"), proj, process.env))?.directories[proj]?.length).toBe(dirs?.length);
  });

  it("the decision judges the evidence in the subject and runs nothing itself; a fact missing there asks", () => {
    const bash = namedTool("Bash");
    const decide = (command: string, narrowing?: ReadNarrowingEvidence): string =>
      resolvePermission(request({ tool: bash, cwd: proj, deny: ["Read(./.env)"], subject: { kind: "shell", facts: analyzeCommand(command), ...(narrowing && { narrowing }) } }), { home: join(root, "home") }).behavior;
    const listing = { top: proj, paths: ["src/a.ts"] };
    expect(decide("git grep TODO", { git: { [evidenceKey("index", proj)]: listing }, directories: {} })).toBe("allow");
    expect(decide("git grep TODO", { git: { [evidenceKey("index", proj)]: { top: proj, paths: ["src/a.ts", ".env"] } }, directories: {} })).toBe("ask");
    expect(decide("git grep TODO", { git: {}, directories: {} })).toBe("ask");
    expect(decide("git log -p", { git: { [evidenceKey("index", proj)]: listing }, directories: {} })).toBe("ask");
    expect(decide("rg --hidden TODO", { git: { [evidenceKey("unignored", proj)]: listing }, directories: {} })).toBe("allow");
    expect(decide("rg --hidden TODO", { git: { [evidenceKey("unignored", proj)]: null }, directories: {} })).toBe("ask");
    expect(decide("find . -name x", { git: {}, directories: { [proj]: ["", "src"] } })).toBe("allow");
    expect(decide("find . -name x", { git: {}, directories: { [proj]: ["", ".env"] } })).toBe("ask");
    expect(decide("find . -name x", { git: {}, directories: {} })).toBe("ask");
  });
});
