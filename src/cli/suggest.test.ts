import { describe, expect, it } from "vitest";
import { captureIO } from "../../test/helpers.js";
import { EXEC_HELP } from "./exec.js";
import { main } from "./main.js";
import { MCP_HELP } from "./mcp.js";
import { closestWords, didYouMean, editDistance, flagsInHelp } from "./suggest.js";

describe("did you mean", () => {
  it("counts a swap of neighbouring letters as one edit", () => {
    expect(editDistance("verison", "version")).toBe(1);
    expect(editDistance("exce", "exec")).toBe(1);
    expect(editDistance("serv", "serve")).toBe(1);
    expect(editDistance("", "abc")).toBe(3);
    expect(editDistance("kitten", "sitting")).toBe(3);
  });

  it("suggests the nearest known words, nearest first, and nothing for a word far from all", () => {
    expect(closestWords("--verison", ["--verbose", "--version", "--resume"])).toEqual(["--version"]);
    expect(closestWords("--perm", ["--permission-mode", "--print"])).toEqual(["--permission-mode"]);
    expect(closestWords("--prnt", ["--print", "--permission-mode"])).toEqual(["--print"]);
    expect(closestWords("frobnicate", ["exec", "agent", "mcp"])).toEqual([]);
    expect(didYouMean("chek", ["check", "list", "audit"])).toBe(" Did you mean check?");
    expect(didYouMean("lst", ["list", "last"])).toBe(" Did you mean last or list?");
    expect(didYouMean("zzz", ["check"])).toBe("");
  });

  it("reads the long flags a help text names", () => {
    expect(flagsInHelp("  --cwd DIR     the directory\n  -h, --help   this\n  use --max-concurrency=N (not-a--flag)")).toEqual(["--cwd", "--help", "--max-concurrency"]);
  });
});

describe("the CLI on a mistyped flag or command", () => {
  it("a mistyped top-level flag (`armature --verison`) suggests --version, without the whole agent usage", async () => {
    const c = captureIO();
    expect(await main(["--verison"], c)).toBe(2);
    expect(c.err).toContain("Unknown option '--verison'");
    expect(c.err).toContain("Did you mean --version?");
    expect(c.err).toContain("Run 'armature help agent' for its options.");
    expect(c.err).not.toContain("Usage: armature agent");
    expect(c.out).toBe("");
  });

  it("a mistyped flag of a command suggests that command's flag", async () => {
    const c = captureIO("[]");
    expect(await main(["exec", "--cdw", "/tmp"], c)).toBe(2);
    expect(c.err).toContain("Did you mean --cwd?");
    const m = captureIO();
    expect(await main(["mcp", "serve", "--htp", "8080"], m)).toBe(2);
    expect(m.err).toContain("Did you mean --http?");
    expect(m.err).toContain("Run 'armature help mcp' for its options.");
  });

  it("an unknown flag with nothing near it still says where the options are", async () => {
    const c = captureIO("[]");
    expect(await main(["exec", "--zzzzzzzz"], c)).toBe(2);
    expect(c.err).not.toContain("Did you mean");
    expect(c.err).toContain("Run 'armature help exec' for its options.");
  });

  it("a mistyped command or subcommand suggests the right one", async () => {
    for (const [argv, suggestion] of [
      [["exce"], "Did you mean exec?"],
      [["permissions", "chek"], "Did you mean check?"],
      [["mcp", "serv"], "Did you mean serve?"],
    ] as const) {
      const c = captureIO();
      expect(await main([...argv], c), argv.join(" ")).toBe(2);
      expect(c.err).toContain(suggestion);
    }
  });

  it("`armature help <command>` prints that command's help", async () => {
    const c = captureIO();
    expect(await main(["help", "exec"], c)).toBe(0);
    expect(c.out).toBe(EXEC_HELP);
    const m = captureIO();
    expect(await main(["help", "mcp"], m)).toBe(0);
    expect(m.out).toBe(MCP_HELP);
    const top = captureIO();
    expect(await main(["help"], top)).toBe(0);
    expect(top.out).toContain("Run 'armature help <command>'");
    const bad = captureIO();
    expect(await main(["help", "exce"], bad)).toBe(2);
    expect(bad.err).toContain('no help for "exce": not a command. Did you mean exec?');
    expect(bad.out).toBe("");
  });
});
