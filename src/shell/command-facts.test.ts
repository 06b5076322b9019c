import { describe, expect, it, vi } from "vitest";
import { SHELL_CALL, shellCallThroughSession, sub } from "../../test/permission-helpers.js";
import { withTempDir } from "../../test/helpers.js";

// Counters on the derivations the facts are built from: the modules are loaded again below
// (vi.resetModules) so that every importer, the lazily loaded analysis included, gets the
// counted ones. (That one call parses once is in ./one-parse.test.ts, without these mocks.)
const counts = vi.hoisted(() => ({ effectiveArgv: 0, restrictiveTexts: 0 }));
vi.mock("./bash-rules.js", async (original) => {
  const m = await original<typeof import("./bash-rules.js")>();
  return {
    ...m,
    effectiveArgv: (...a: Parameters<typeof m.effectiveArgv>) => (counts.effectiveArgv++, m.effectiveArgv(...a)),
    restrictiveTexts: (...a: Parameters<typeof m.restrictiveTexts>) => (counts.restrictiveTexts++, m.restrictiveTexts(...a)),
  };
});

let loaded:
  | Promise<{ analyzeCommand: typeof import("./index.js").analyzeCommand; commandFacts: typeof import("./command-facts.js").commandFacts }>
  | undefined;
function fresh() {
  loaded ??= (async () => {
    vi.resetModules();
    const shell = await import("./index.js");
    await shell.ensureBashGrammar();
    const { commandFacts } = await import("./command-facts.js");
    return { analyzeCommand: shell.analyzeCommand, commandFacts };
  })();
  return loaded;
}

describe("CommandFacts", () => {
  it("reads each simple command as every consumer needs it", async () => {
    const { analyzeCommand, commandFacts } = await fresh();
    const rows: Array<{ command: string; want: Record<string, unknown> }> = [
      { command: "timeout 5 /bin/rm -rf build", want: { argv: ["/bin/rm", "-rf", "build"], program: "rm", programKnown: true, unknown: false } },
      { command: "rm -rf build", want: { writes: ["build"], reads: [] } },
      { command: "$(echo rm) -rf build", want: { programKnown: false } },
      { command: "find . -name x -delete", want: { program: "find", exactRuleOnly: true } },
      { command: "find . -name x", want: { exactRuleOnly: false } },
      { command: "NODE_ENV=test npm test", want: { safeEnv: true, texts: ["npm test"] } },
      { command: "EDITOR=vim git commit", want: { safeEnv: false } },
      { command: "git -C . push origin", want: { program: "git", restrictiveTexts: expect.arrayContaining(["git -C . push origin", "git push origin"]) } },
      { command: "cat README.md", want: { reads: ["README.md"], writes: [], treeWriter: null } },
      { command: "tar -xf a.tar -C out", want: { treeWriter: "archive" } },
      { command: "mywrapper rm -rf /", want: { unknown: true, restrictiveTexts: expect.arrayContaining(["rm -rf /"]) } },
      { command: '$"rm" -rf x', want: { localeRestrictiveTexts: expect.arrayContaining(["rm -rf x"]) } },
    ];
    for (const { command, want } of rows) {
      const facts = commandFacts(analyzeCommand(command).subcommands.find((s) => !s.nested)!);
      expect({ command, facts }).toMatchObject({ command, facts: want });
    }
  });

  it("is built once per subcommand and frozen, and the analysis's result is immutable", async () => {
    const { analyzeCommand, commandFacts } = await fresh();
    const facts = analyzeCommand("ls -la src && cat README.md > out.txt");
    const first = facts.subcommands[0]!;
    const built = counts.effectiveArgv;
    const cf = commandFacts(first);
    expect(commandFacts(first)).toBe(cf);
    expect(counts.effectiveArgv).toBe(built); // built by the analysis, not on first use
    expect(Object.isFrozen(cf) && Object.isFrozen(cf.argv) && Object.isFrozen(cf.restrictiveTexts)).toBe(true);
    // Effect: a consumer that tries to change what the next one reads fails and changes nothing.
    expect(() => (first.argv as string[]).push("-R")).toThrow(TypeError);
    expect(() => (facts.writeTargets as string[]).splice(0)).toThrow(TypeError);
    expect(() => ((facts as { readOnly: boolean }).readOnly = true)).toThrow(TypeError);
    expect(() => ((first.targets!.write as string[])[0] = "elsewhere")).toThrow(TypeError);
    expect(analyzeCommand("ls -la src && cat README.md > out.txt")).toEqual(facts);
    expect(facts.writeTargets).toEqual(["out.txt"]);
    // A subcommand made elsewhere (a test's, a rewritten one) gets its facts on first use, once.
    const made = sub("rm -rf x");
    const before = counts.effectiveArgv;
    expect(commandFacts(made).program).toBe("rm");
    commandFacts(made);
    expect(counts.effectiveArgv - before).toBe(1);
  });

  it("one Bash call through the pipeline builds each subcommand's facts once, however often the engine reads them", async () => {
    await withTempDir(async (dir) => {
      await fresh();
      const lib = await import("../index.js");
      counts.effectiveArgv = 0;
      counts.restrictiveTexts = 0;
      const result = await shellCallThroughSession(lib, dir);
      expect(result.is_error).not.toBe(true);
      expect(JSON.stringify(result)).toContain("src/a.ts:1:foo");
      expect(counts.effectiveArgv).toBe(SHELL_CALL.subcommands);
      expect(counts.restrictiveTexts).toBe(SHELL_CALL.subcommands);
    });
  });
});
