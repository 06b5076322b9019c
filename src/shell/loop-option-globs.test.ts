// Red team, issue 19: `for f in *; do wc "$f"; done` hands wc every name `*` matches, so a file
// named `--files0-from=.env` is an option to it exactly as in `wc *`. The loop variable's globs
// are carried as the command's optionGlobs, whose matches the permission check judges.
import { describe, expect, it } from "vitest";
import { analyzeCommand } from "./index.js";

const globsOf = (command: string): string[] => analyzeCommand(command).subcommands.flatMap((s) => s.optionGlobs ?? []);

describe("a loop variable over a glob where the command reads options", () => {
  it.each<[string, string[]]>([
    // attacks
    ['for f in *; do wc "$f"; done', ["*"]],
    ["for f in *; do wc $f; done", ["*"]],
    ["for f in *; do wc -l ${f}; done", ["*"]],
    ['for f in ?x [a-z]*; do grep -n X "$f"; done', ["?x", "[a-z]*"]],
    ["select f in *; do cat $f; done", ["*"]],
    // benign controls: after `--`, or a match that cannot begin with - or @
    ['for f in *; do wc -- "$f"; done', []],
    ['for f in src/*; do wc "$f"; done', []],
    ['for f in ./*; do wc "$f"; done', []],
    ['for f in *; do wc "x$f"; done', []],
    ["for f in a b; do wc $f; done", []],
  ])("%s", (command, globs) => expect(globsOf(command)).toEqual(globs));
});
