import { describe, expect, it } from "vitest";
import { analyzeCommand } from "./index.js";

describe("analyzeCommand: basics", () => {
  it("extracts simple commands, env and redirects", () => {
    const f = analyzeCommand('FOO=1 ls -la "a b" > /dev/null 2>&1');
    expect(f.subcommands).toHaveLength(1);
    expect(f.subcommands[0]).toMatchObject({
      argv: ["ls", "-la", "a b"],
      text: "ls -la a b",
      effective: "ls -la a b",
      nested: false,
      env: { FOO: "1" },
      redirects: [{ op: ">", target: "/dev/null" }, { op: "2>&", target: "1" }],
    });
  });

  it("a plain listing is read-only and complete", () => {
    const f = analyzeCommand("ls -la src");
    expect(f).toMatchObject({ readOnly: true, complete: true, reasons: [] });
  });
});
