// Prompts removed soundly: read-only commands that asked, each next to the neighbour that must
// still ask (a trace written to a file, a reflog subcommand that expires, a help viewer, a
// utmp FILE outside the working directories, old-style tar options for meaning rules).
import { describe, expect, it } from "vitest";
import { analyzeCommand } from "./index.js";

const readOnly = (command: string): boolean => analyzeCommand(command).readOnly;

describe("git help", () => {
  it.each(["git help log", "git help", "git help -a", "git help -g", "git help rev-parse"])("%s prints (man without a terminal, or a list)", (command) =>
    expect(readOnly(command)).toBe(true),
  );
  it.each(["git help -w log", "git help --web log", "git help -i log", "git help --info log", "git help -m log", "git help ../../x", "git help ./x", "git help log diff"])(
    "%s may open another viewer or read a file",
    (command) => expect(readOnly(command)).toBe(false),
  );
});
