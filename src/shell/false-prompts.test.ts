// Prompts removed soundly: read-only commands that asked, each next to the neighbour that must
// still ask (a trace written to a file, a reflog subcommand that expires, a help viewer, a
// utmp FILE outside the working directories, old-style tar options for meaning rules).
import { describe, expect, it } from "vitest";
import { expectTargets, type Row } from "../../test/analysis-helpers.js";
import { analyzeCommand } from "./index.js";
import { commandFacts } from "./command-facts.js";

const readOnly = (command: string): boolean => analyzeCommand(command).readOnly;

describe("git trace variables", () => {
  it.each(["GIT_TRACE=1 git status", "GIT_TRACE=true git log -1", "GIT_TRACE=0 GIT_TRACE_PACKET=2 git diff", "GIT_TRACE2_PERF=false git status", "GIT_TRACE= git status"])(
    "%s prints its trace on stderr (read-only)",
    (command) => expect(readOnly(command)).toBe(true),
  );
  it.each<Row>([
    ["GIT_TRACE=/tmp/x git status", [], ["/tmp/x"]],
    ["GIT_TRACE_SETUP=/tmp/x git log", [], ["/tmp/x"]],
    ["GIT_TRACE2_EVENT=af_unix:/tmp/s git status", [], ["/tmp/s"]],
    ["GIT_TRACE=$X git status", [], ["$X"]],
    ["GIT_TRACE=3 git status", [], []],
  ])("%s is not read-only, and names the file written", (command, reads, writes) => {
    expect(readOnly(command)).toBe(false);
    expectTargets(command, reads, writes);
  });
  it("GIT_TRACE_REDACT is no trace target", () => expect(readOnly("GIT_TRACE_REDACT=0 git status")).toBe(false));
});

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

describe("uptime reads its FILE operand", () => {
  it.each<Row>([
    ["uptime", [], []],
    ["uptime -p", [], []],
    ["uptime /var/run/utmp", ["/var/run/utmp"], []],
    ["uptime .env", [".env"], []],
  ])("%s", (command, reads, writes) => expectTargets(command, reads, writes));
  it("an option uptime does not know leaves it unknown", () => expect(analyzeCommand("uptime --bogus").complete).toBe(false));
});

describe("git diff --name-only is a file-name producer", () => {
  it.each([
    ["git diff --name-only | xargs cat", "$(git diff --name-only)", ["git", "diff", "--name-only"]],
    ["cat $(git diff --name-only HEAD~1 -- src)", "$(git diff --name-only HEAD~1 -- src)", ["git", "diff", "--name-only", "HEAD~1", "--", "src"]],
    ["git diff --cached --name-only main...HEAD | xargs wc -l", "$(git diff --cached --name-only main...HEAD)", ["git", "diff", "--cached", "--name-only", "main...HEAD"]],
  ])("%s reads what %s prints", (command, word, argv) => {
    const facts = analyzeCommand(command);
    expect(facts.readOnly).toBe(true);
    expect(facts.producers?.[word]).toEqual(argv);
  });
  it.each(["git diff --name-status | xargs cat", "git diff --name-only -z | xargs cat", "git diff --stat | xargs cat", "git diff | xargs cat", "git diff --name-only --output=x | xargs cat"])(
    "%s has no producer to run",
    (command) => expect(analyzeCommand(command).producers).toBeUndefined(),
  );
});

describe("old-style tar options read as the options they are", () => {
  it.each<[string, string[]]>([
    ["tar xzf a.tgz", ["tar", "--extract", "--gzip", "--file", "a.tgz"]],
    ["tar tzf a.tgz", ["tar", "--list", "--gzip", "--file", "a.tgz"]],
    ["tar cfT out.tar list", ["tar", "--create", "--file", "out.tar", "--files-from", "list"]],
  ])("canonical argv: %s", (command, argv) => {
    const sub = analyzeCommand(command).subcommands[0]!;
    expect(commandFacts(sub).canonicalArgv).toEqual(argv);
    expect(sub.ruleTexts).toContain(argv.join(" "));
  });
});
