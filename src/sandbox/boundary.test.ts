import { describe, expect, it } from "vitest";
import { chooseBoundary, containsNothingKnownToWrite, isExcludedCommand, networkApproved, usesNoNetwork, type SandboxState } from "./boundary.js";
import { bwrapArgs, type BwrapPlan } from "./bwrap-args.js";
import { analyzeCommand } from "../shell/index.js";
import { commandFacts } from "../shell/command-facts.js";
import { applySandboxEnv, DEFAULT_SANDBOX_SETTINGS, mergeSandboxLayers, type SandboxLayer } from "./settings.js";

const on: SandboxState = { enabled: true, available: true, autoAllowBashIfSandboxed: true, allowUnsandboxedCommands: true, excludedCommands: ["docker", "kubectl get *"] };

/** The facts of every simple command of `command`, as the decision hands them to the boundary. */
const of = (command: string) => analyzeCommand(command).subcommands.map(commandFacts);

describe("chooseBoundary (pure)", () => {
  it.each<[string, Partial<Omit<Parameters<typeof chooseBoundary>[0], "commands">> & { command?: string }, string]>([
    ["no sandbox settings", { sandbox: undefined }, "unsandboxed"],
    ["turned off", { sandbox: { ...on, enabled: false } }, "unsandboxed"],
    ["on but cannot run", { sandbox: { ...on, available: false } }, "unavailable"],
    ["read-only call", { readOnly: true }, "read-only"],
    ["a call that writes", { readOnly: false }, "workspace-write"],
    ["dangerouslyDisableSandbox", { disableSandbox: true }, "unsandboxed"],
    ["dangerouslyDisableSandbox when unsandboxed commands are off", { disableSandbox: true, sandbox: { ...on, allowUnsandboxedCommands: false } }, "workspace-write"],
    ["an excluded command", { command: "docker ps" }, "unsandboxed"],
    ["an excluded command behind a wrapper", { command: "timeout 5 docker ps" }, "unsandboxed"],
    ["an excluded prefix", { command: "kubectl get pods" }, "unsandboxed"],
    ["not the excluded prefix", { command: "kubectl delete pods" }, "workspace-write"],
    ["an excluded command beside another", { command: "docker ps && rm -rf x" }, "workspace-write"],
    ["an excluded command run by xargs", { command: "ls | xargs docker rm" }, "workspace-write"],
  ])("%s", (_name, { command = "make", ...over }, expected) => {
    expect(chooseBoundary({ sandbox: on, readOnly: false, commands: of(command), disableSandbox: false, ...over })).toBe(expected);
  });

  it.each<[string, string, boolean]>([
    ["plain", "docker", true],
    ["by path", "/usr/bin/docker ps", true],
    ["other", "dockerd", false],
  ])("isExcludedCommand %s", (_n, command, expected) => {
    expect(isExcludedCommand(of(command), ["docker"])).toBe(expected);
  });

  it("isExcludedCommand: no command is not excluded", () => {
    expect(isExcludedCommand([], ["docker"])).toBe(false);
  });
});

describe("containsNothingKnownToWrite (pure)", () => {
  const facts = { complete: true, writeTargets: [] as string[] };
  it.each<[string, string, boolean]>([
    ["an unknown read-only-looking tool", "mytool --list", true],
    ["xargs of a reader", "find . | xargs wc -l", true],
    ["xargs of wc after ls", "ls | xargs wc -l", true],
    ["xargs of rm", "ls | xargs rm", false],
    ["find -exec rm", "find . -exec rm {} ';'", false],
    ["a loop variable as the program", '"$f" --version', true],
    ["an interpreter", "python3 -c 'print(1)'", false],
    ["a package manager", "npm test", false],
    ["git", "git commit", false],
    ["a network client", "curl http://x", false],
    ["env running a writer", "env FOO=1 rm x", false],
    ["a wrapper of a writer", "nice -n 5 rm x", false],
    ["xargs of a variable command", "ls | xargs $cmd", false],
    ["xargs with a word known only when it runs", 'ls | xargs grep "$p"', false],
    ["an unmodelled command, whatever its words (the boundary holds it)", "parallel rm ::: a b", true],
    ["an unmodelled command naming a program", "pgrep -a node", true],
  ])("%s: %s", (_n, command, expected) => {
    expect(containsNothingKnownToWrite(facts, of(command))).toBe(expected);
  });

  it.each<[string, string, boolean[], boolean]>([
    ["git judged read-only feeding xargs", "git diff --name-only | xargs grep TODO", [true, true, true], true],
    ["git not judged read-only", "git diff --output=x | xargs wc", [false, true, true], false],
    ["a judged reader beside a known writer", "git diff --name-only | xargs sed -i s/a/b/", [true, false, false], false],
    ["xargs running git stays known to run a writer", "git log | xargs git show", [true, false, true], false],
  ])("judged read-only parts: %s", (_n, command, judged, expected) => {
    expect(of(command)).toHaveLength(judged.length);
    expect(containsNothingKnownToWrite(facts, of(command), judged)).toBe(expected);
  });

  it("never with a write target or an incomplete analysis", () => {
    expect(containsNothingKnownToWrite({ complete: true, writeTargets: ["out.txt"] }, of("mytool"))).toBe(false);
    expect(containsNothingKnownToWrite({ complete: false, writeTargets: [] }, of("mytool"))).toBe(false);
  });
});

describe("usesNoNetwork (pure): the calls that get no proxy even when approved", () => {
  const facts = { complete: true };
  it.each<[string, string, boolean]>([
    ["echo into a file", "echo x > f", true],
    ["cp and mkdir", "mkdir -p b && cp a b/", true],
    ["find without -exec", "find . -name '*.ts'", true],
    ["find -exec", "find . -exec curl x ';'", false],
    ["env alone", "env", true],
    ["env running a program", "env A=1 curl x", false],
    ["xargs running a program", "ls | xargs cat", false],
    ["a network client", "curl http://x", false],
    ["an interpreter", "python3 x.py", false],
    ["sed (its e command runs a shell)", "sed 'e curl x' f", false],
    ["a program named by a variable", "$cmd", false],
    ["a program named by a substitution", "$(echo cat) f", false],
  ])("%s", (_n, command, expected) => {
    expect(usesNoNetwork(facts, of(command))).toBe(expected);
  });

  it("no command, or an incomplete analysis: never", () => {
    expect(usesNoNetwork(facts, [])).toBe(false);
    expect(usesNoNetwork({ complete: false }, of("echo"))).toBe(false);
  });
});

describe("networkApproved (pure)", () => {
  it.each<[string, { behavior: string; rule: string | null; source: string | null }, boolean, boolean]>([
    ["approved by a human", { behavior: "allow", rule: null, source: "approver" }, true, true],
    ["an allow rule", { behavior: "allow", rule: "Bash(npm install)", source: "cli" }, false, true],
    ["bypass mode", { behavior: "allow", rule: null, source: "mode:bypassPermissions" }, false, true],
    ["acceptEdits' file commands", { behavior: "allow", rule: null, source: "mode:acceptEdits" }, false, false],
    ["read-only by the mode", { behavior: "allow", rule: null, source: "mode:default" }, false, false],
    ["denied", { behavior: "deny", rule: null, source: "approver" }, true, false],
  ])("%s", (_n, decision, asked, expected) => {
    expect(networkApproved(decision, asked)).toBe(expected);
  });
});

describe("bwrapArgs (pure)", () => {
  const plan: BwrapPlan = {
    boundary: "workspace-write",
    writable: ["/proj", "/tmp"],
    pinned: ["/proj/.git"],
    readOnly: ["/proj/.git/hooks", "/proj/.claude"],
    masked: [
      { path: "/proj/secrets", directory: true },
      { path: "/proj/.env", directory: false },
    ],
    hidden: ["/run"],
    sockets: [],
    seccomp: false,
    network: false,
    cwd: "/proj/sub",
  };
  const order = (args: string[], flag: string, path: string): number => args.findIndex((a, i) => a === flag && args[i + 1] === path);

  it("read-only root first; socket dirs hidden; writable binds; pins; protected and masked paths last", () => {
    const args = bwrapArgs(plan, ["bash", "-c", "x"]);
    expect(args.slice(0, 3)).toEqual(["--ro-bind", "/", "/"]);
    expect(order(args, "--tmpfs", "/run")).toBeLessThan(order(args, "--bind", "/proj"));
    expect(order(args, "--bind", "/proj")).toBeLessThan(order(args, "--bind", "/proj/.git"));
    expect(order(args, "--bind", "/proj/.git")).toBeLessThan(order(args, "--ro-bind", "/proj/.git/hooks"));
    expect(args.join(" ")).toContain("--tmpfs /proj/secrets --remount-ro /proj/secrets");
    expect(args.join(" ")).toContain("--ro-bind /dev/null /proj/.env");
    expect(args).toContain("--unshare-net");
    expect(args).toContain("--unshare-pid");
    expect(args).toContain("--die-with-parent");
    expect(args.join(" ")).toContain("--cap-drop ALL");
    expect(args.slice(-5)).toEqual(["/proj/sub", "--", "bash", "-c", "x"]);
  });

  it("shares the network only when the plan says so", () => {
    expect(bwrapArgs({ ...plan, network: true }, ["true"])).not.toContain("--unshare-net");
  });

  it("with the proxy: no network of its own, no socket bound in, the bridge in front of the command", () => {
    const args = bwrapArgs({ ...plan, network: true, proxy: { node: "/usr/bin/node" } }, ["bash", "-c", "x"]);
    expect(args).toContain("--unshare-net");
    const start = args.indexOf("--") + 1;
    expect(args.slice(0, start).filter((a) => a.includes("sock"))).toEqual([]);
    expect(args.slice(start, start + 2)).toEqual(["/usr/bin/node", "-e"]);
    expect(args.slice(start + 3)).toEqual(["bash", "-c", "x"]);
  });

  it("the filter read from fd 3; the session's temp folder over /tmp before everything else, read-only in the read-only boundary", () => {
    const tmp = { source: "/home/u/.armature/s/tmp", at: ["/tmp"], visible: ["/tmp/proj"] };
    const args = bwrapArgs({ ...plan, seccomp: true, tmp }, ["true"]);
    expect(args.join(" ")).toContain("--seccomp 3");
    expect(order(args, "--bind", tmp.source)).toBe(7);
    expect(args[9]).toBe("/tmp");
    expect(order(args, "--ro-bind", "/tmp/proj")).toBeLessThan(order(args, "--bind", "/proj"));
    expect(args.join(" ")).not.toContain("--remount-ro /tmp");
    const ro = bwrapArgs({ ...plan, boundary: "read-only", tmp }, ["true"]);
    expect(ro.join(" ")).toContain("--remount-ro /tmp");
    expect(ro).not.toContain("--seccomp");
  });
});

describe("sandbox settings across levels (pure)", () => {
  const layer = (source: string, widens: boolean, settings: SandboxLayer["settings"]): SandboxLayer => ({ source, root: "/proj", home: "/home/u", widens, settings });

  it("defaults: on, auto-allow on, unsandboxed commands allowed", () => {
    expect(mergeSandboxLayers([]).settings).toMatchObject({ enabled: true, autoAllowBashIfSandboxed: true, allowUnsandboxedCommands: true });
  });

  it("an untrusted project may only narrow", () => {
    const merged = mergeSandboxLayers([
      layer("project", false, {
        enabled: false,
        autoAllowBashIfSandboxed: false,
        excludedCommands: ["bash"],
        network: { allowedDomains: ["evil.example"] },
        filesystem: { allowWrite: ["/"], denyRead: ["./secrets"], denyWrite: ["~/notes"] },
      }),
    ]);
    expect(merged.settings.enabled).toBe(true);
    expect(merged.settings.autoAllowBashIfSandboxed).toBe(false);
    expect(merged.settings.excludedCommands).toEqual([]);
    expect(merged.settings.allowedDomains).toEqual([]);
    expect(merged.settings.allowWrite).toEqual([]);
    expect(merged.settings.denyRead).toEqual(["/proj/secrets"]);
    expect(merged.settings.denyWrite).toEqual(["/home/u/notes"]);
    expect(merged.ignored.map((i) => i.key).sort()).toEqual(["sandbox.enabled", "sandbox.excludedCommands", "sandbox.filesystem.allowWrite", "sandbox.network.allowedDomains"]);
  });

  it.each([
    ["the default", [], true, false],
    ["the user's own level says true", [["user", true, false, true]], true, true],
    ["a trusted project says true", [["project", true, true, true]], true, false],
    ["an untrusted project says true", [["project", false, true, true]], true, false],
    ["the user says true, a project says false", [["user", true, false, true], ["project", false, true, false]], false, false],
  ] as const)("allowUnsandboxedCommands: %s", (_, levels, allowed, unasked) => {
    const merged = mergeSandboxLayers(levels.map(([source, widens, project, value]) => ({ ...layer(source, widens, { allowUnsandboxedCommands: value }), project })));
    expect(merged.settings.allowUnsandboxedCommands).toBe(allowed);
    // Only the user's own `true` lets bypassPermissions leave the sandbox without asking.
    expect(merged.settings.unsandboxedUnasked).toBe(unasked);
  });

  it("the user's levels widen; a narrowing value below still holds", () => {
    const merged = mergeSandboxLayers([layer("user", true, { enabled: false, excludedCommands: ["docker"] }), layer("managed-below", true, { enabled: true })]);
    expect(merged.settings.enabled).toBe(true);
    expect(merged.settings.excludedCommands).toEqual(["docker"]);
    expect(mergeSandboxLayers([layer("user", true, { enabled: false })]).settings.enabled).toBe(false);
  });

  it.each<[string | undefined, boolean, boolean]>([
    ["0", false, false],
    ["off", false, false],
    ["1", true, true],
    [undefined, true, false],
    ["maybe", true, false],
  ])("ARMATURE_SANDBOX=%s", (value, enabled, required) => {
    const s = applySandboxEnv(DEFAULT_SANDBOX_SETTINGS, value === undefined ? {} : { ARMATURE_SANDBOX: value });
    expect([s.enabled, s.required]).toEqual([enabled, required]);
  });
});
