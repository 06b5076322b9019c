// examples/coprocess.py: a Python agent loop that drives `armature exec` turn by turn.
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";

const python = spawnSync("python3", ["--version"], { encoding: "utf8" });
const hasPython = python.status === 0;
if (!hasPython) console.warn("examples/coprocess.py not run: python3 is not installed");

describe("the Python co-process example", () => {
  it.skipIf(!hasPython)("drives exec over five turns, each decided from the answer to the one before", () => {
    const r = spawnSync("python3", ["examples/coprocess.py"], {
      encoding: "utf8",
      env: { ...process.env, ARMATURE: `${JSON.stringify(process.execPath)} ${JSON.stringify(resolve("bin/armature.js"))}` },
      timeout: 240_000,
    });
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toContain("turn 3: src/math.ts exports ['add', 'mul']");
    expect(r.stdout.trim().split("\n").at(-1)).toBe("ok");
  }, 300_000);
});
