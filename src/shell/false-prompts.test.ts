// Prompts removed soundly: read-only commands that asked, each next to the neighbour that must
// still ask (a trace written to a file, a reflog subcommand that expires, a help viewer, a
// utmp FILE outside the working directories, old-style tar options for meaning rules).
import { describe, expect, it } from "vitest";
import { expectTargets } from "../../test/analysis-helpers.js";
import { analyzeCommand } from "./index.js";

const readOnly = (command: string): boolean => analyzeCommand(command).readOnly;

describe("git reflog takes log options", () => {
  it.each(["git reflog -p -- f", "git reflog", "git reflog HEAD", "git reflog show main", "git reflog -n 5 origin/main", "git reflog --all -- expire", "git reflog exists HEAD"])(
    "%s reads",
    (command) => expect(readOnly(command)).toBe(true),
  );
  it.each(["git reflog expire --all", "git reflog -p expire", "git reflog delete HEAD@{1}", "git reflog drop main", "git reflog main", "git reflog --output=x"])(
    "%s may change the reflog (or writes)",
    (command) => expect(readOnly(command)).toBe(false),
  );
  it("git reflog -p -- f reads f", () => expectTargets("git reflog -p -- f", ["f"], []));
});

describe("git help", () => {
  it.each(["git help log", "git help", "git help -a", "git help -g", "git help rev-parse"])("%s prints (man without a terminal, or a list)", (command) =>
    expect(readOnly(command)).toBe(true),
  );
  it.each(["git help -w log", "git help --web log", "git help -i log", "git help --info log", "git help -m log", "git help ../../x", "git help ./x", "git help log diff"])(
    "%s may open another viewer or read a file",
    (command) => expect(readOnly(command)).toBe(false),
  );
});
