import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { eventually, ResponseRecorder, run, shellSession, textOf } from "../../../test/bash-helpers.js";
import { mkdtempOutsideTempDir, toolUse, withTempDir } from "../../../test/helpers.js";
import type { BashOutput } from "./result.js";
import { sandboxConfigFromEnv, type SandboxConfig } from "./sandbox.js";

describe("sandbox option from the environment (pure)", () => {
  it.each<[Record<string, string>, SandboxConfig | undefined]>([
    [{}, undefined],
    [{ ARMATURE_SANDBOX: "0" }, undefined],
    [{ ARMATURE_SANDBOX: "1" }, { enabled: true, allowNetwork: false, writablePaths: [] }],
    [
      { ARMATURE_SANDBOX: "true", ARMATURE_SANDBOX_ALLOW_NETWORK: "1", ARMATURE_SANDBOX_WRITABLE: "/a:/b" },
      { enabled: true, allowNetwork: true, writablePaths: ["/a", "/b"] },
    ],
    [{ ARMATURE_SANDBOX: "1", ARMATURE_SANDBOX_ALLOW_UNSANDBOXED: "0" }, { enabled: true, allowNetwork: false, writablePaths: [], allowUnsandboxedCommands: false }],
  ])("from the environment %j", (env, expected) => {
    expect(sandboxConfigFromEnv(env)).toEqual(expected);
  });
});

// Real bubblewrap. Skipped only when bwrap is missing or cannot create namespaces here, with the reason printed.
const probe = spawnSync("bwrap", ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "--unshare-net", "--cap-drop", "ALL", "--", "true"], {
  encoding: "utf8",
});
const bwrapProblem = probe.error ? `bwrap is not installed (${probe.error.message})` : probe.status !== 0 ? `bwrap cannot create namespaces here: ${probe.stderr.trim()}` : undefined;
if (bwrapProblem) console.warn(`Skipping the real sandbox tests: ${bwrapProblem}`);

describe.skipIf(bwrapProblem !== undefined)("sandbox with real bubblewrap", () => {
  const sandboxed = (dir: string, sandbox: Partial<SandboxConfig> = {}, session = {}) =>
    shellSession(dir, { bash: { sandbox: { enabled: true, ...sandbox } }, session });

  it("writes outside the working dirs fail; inside the project and in the session's own /tmp they work", async () => {
    await withTempDir(async (dir) => {
      const outside = mkdtempOutsideTempDir("armature-sbx-");
      try {
        const hooks = new ResponseRecorder();
        const s = sandboxed(dir, {}, { hooks });
        const r = await run(s, "Bash", {
          command: `echo in > inside.txt && echo tmp > "${tmpdir()}/armature-sbx-$$.txt" && rm "${tmpdir()}/armature-sbx-$$.txt" && echo ok; echo out > ${outside}/x.txt`,
        });
        expect(hooks.last<BashOutput>().sandboxed).toBe(true);
        expect(textOf(r)).toContain("ok");
        expect(textOf(r)).toContain("Read-only file system");
        expect(r.is_error).toBe(true);
        expect(readFileSync(join(dir, "inside.txt"), "utf8")).toBe("in\n");
        expect(existsSync(join(outside, "x.txt"))).toBe(false);
        // The home is outside the working dirs, wherever it is: in the temp dir too (HOME=$(mktemp -d)),
        // the host's temp dir being no more writable than the rest.
        const home = await run(s, "Bash", { command: "touch ~/.armature-sandbox-probe" });
        expect(textOf(home)).toContain("Read-only file system");
        await s.close();
      } finally {
        rmSync(outside, { recursive: true, force: true });
      }
    });
  });

  it("config folders inside the project stay read-only", async () => {
    await withTempDir(async (dir) => {
      mkdirSync(join(dir, ".git", "hooks"), { recursive: true });
      writeFileSync(join(dir, ".git", "config"), "[core]\n");
      mkdirSync(join(dir, ".claude"));
      const s = sandboxed(dir);
      for (const command of ["echo x > .git/hooks/pre-commit", "echo '[core] fsmonitor = evil' >> .git/config", "echo {} > .claude/settings.json"]) {
        const r = await run(s, "Bash", { command });
        expect(r.is_error).toBe(true);
        expect(textOf(r)).toContain("Read-only file system");
      }
      expect(readdirSync(join(dir, ".git", "hooks"))).toEqual([]);
      expect(readFileSync(join(dir, ".git", "config"), "utf8")).toBe("[core]\n");
      expect(existsSync(join(dir, ".claude", "settings.json"))).toBe(false);
      await s.close();
    });
  });

  it("no capabilities even as root: the read-only root cannot be remounted", async () => {
    await withTempDir(async (dir) => {
      const s = sandboxed(dir);
      const r = await run(s, "Bash", { command: "mount -o remount,rw / && touch /armature-escape" });
      expect(r.is_error).toBe(true);
      expect(existsSync("/armature-escape")).toBe(false);
      await s.close();
    });
  });

  it("the network is unshared unless allowed", async () => {
    const server = createServer((_req, res) => res.end("hello from host"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    const command = `exec 3<>/dev/tcp/127.0.0.1/${port} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3`;
    try {
      await withTempDir(async (dir) => {
        const closed = sandboxed(dir);
        const denied = await run(closed, "Bash", { command });
        expect(denied.is_error).toBe(true);
        expect(textOf(denied)).not.toContain("hello from host");
        await closed.close();
        const open = sandboxed(dir, { allowNetwork: true });
        expect(textOf(await run(open, "Bash", { command }))).toContain("hello from host");
        await open.close();
      });
    } finally {
      server.close();
    }
  });

  it("cwd carries over inside the sandbox", async () => {
    await withTempDir(async (dir) => {
      mkdirSync(join(dir, "sub"));
      const s = sandboxed(dir);
      await run(s, "Bash", { command: "cd sub" });
      expect(textOf(await run(s, "Bash", { command: "pwd" }))).toBe(join(dir, "sub"));
      await s.close();
    });
  });

  it("a timeout stops everything inside the sandbox", async () => {
    await withTempDir(async (dir) => {
      // Background tasks off: the timeout stops the command rather than moving it to the background.
      const s = sandboxed(dir, {}, { env: { ARMATURE_DISABLE_BACKGROUND_TASKS: "1" } });
      const marker = "1234.567";
      const running = (): number =>
        readdirSync("/proc")
          .filter((p) => /^\d+$/.test(p))
          .filter((p) => {
            try {
              return readFileSync(`/proc/${p}/cmdline`, "latin1").includes(marker);
            } catch {
              return false;
            }
          }).length;
      let seen = 0;
      const command = `(sleep ${marker} &) ; bash -c 'trap "" TERM; sleep ${marker}' & sleep 0.2; echo started; sleep ${marker}`;
      const [r] = await s.runTurn([toolUse("Bash", { command, timeout: 3_000 })], {
        onProgress: (p) => {
          if ((p.data as { chunk: string }).chunk.includes("started")) seen = running();
        },
      });
      expect(textOf(r!)).toContain("Command timed out");
      expect(seen).toBeGreaterThanOrEqual(3);
      expect(await eventually(() => running() === 0, 3_000)).toBe(true);
      await s.close();
    });
  });

  it("dangerouslyDisableSandbox asks; without an approver it is denied, with one it runs outside", async () => {
    await withTempDir(async (dir) => {
      const outside = mkdtempOutsideTempDir("armature-sbx-");
      try {
        const command = `echo out > ${outside}/x.txt`;
        const asks = sandboxed(dir, {}, { permissionMode: "default", canUseTool: undefined });
        const denied = await run(asks, "Bash", { command, dangerouslyDisableSandbox: true });
        expect(denied.is_error).toBe(true);
        expect(textOf(denied)).toContain("Run outside the OS sandbox");
        await asks.close();

        const approvals: string[] = [];
        const approved = sandboxed(dir, {}, {
          permissionMode: "default",
          canUseTool: async (req: { decision: { reason: string } }) => {
            approvals.push(req.decision.reason);
            return { behavior: "allow" as const };
          },
        });
        const r = await run(approved, "Bash", { command, dangerouslyDisableSandbox: true });
        expect(r.is_error).toBeUndefined();
        expect(approvals).toEqual([`Run outside the OS sandbox: ${command}`]);
        expect(readFileSync(join(outside, "x.txt"), "utf8")).toBe("out\n");
        await approved.close();

        const never = sandboxed(dir, { allowUnsandboxedCommands: false }, { permissionMode: "bypassPermissions" });
        const refused = await run(never, "Bash", { command, dangerouslyDisableSandbox: true });
        expect(refused.is_error).toBe(true);
        expect(textOf(refused)).toContain("outside the sandbox is turned off");
        await never.close();
      } finally {
        rmSync(outside, { recursive: true, force: true });
      }
    });
  });

  it("a missing bwrap fails closed instead of running unsandboxed", async () => {
    await withTempDir(async (dir) => {
      const s = sandboxed(dir, { bwrapPath: "/no/such/bwrap" });
      const r = await run(s, "Bash", { command: "touch ran.txt" });
      expect(r.is_error).toBe(true);
      expect(textOf(r)).toContain("bubblewrap (/no/such/bwrap) is not installed");
      expect(existsSync(join(dir, "ran.txt"))).toBe(false);
      await s.close();
    });
  });
});
