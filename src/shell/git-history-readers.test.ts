// Red team, issue 19: git subcommands that print the contents of committed files without being
// log/show/diff — `git reflog -p` (reflog takes the log options; -G/-S search every diff) and
// `git config --blob REV:path` (a committed file's entries). Each reads the files whose contents
// it prints. `git shortlog` computes no diff (its -S/-G filter nothing): it reads no contents.
import { describe, it } from "vitest";
import { expectTargets, type Row } from "../../test/analysis-helpers.js";

describe("git history readers name the files whose contents they print", () => {
  it.each<Row>([
    // attacks
    ["git reflog -p", ["."], []],
    ["git reflog show --patch HEAD", ["."], []],
    ["git reflog -G TOP", ["."], []],
    ["git reflog show -p -- secret/key", ["secret/key"], []],
    ["git config --blob HEAD:secret/key -l", ["secret/key"], []],
    ["git config --blob=HEAD:secret/key a.b", ["secret/key"], []],
    // REV:path is from the top of the work tree, wherever -C runs git; REV:./path from git's directory.
    ["git -C sub config --blob=:secret/key --list", ["secret/key"], []],
    ["git -C sub config --blob=HEAD:./key --list", ["sub/key"], []],
    ["git -C sub show HEAD:secret/key", ["secret/key"], []],
    ["git -C sub cat-file -p HEAD:secret/key", ["secret/key"], []],
    ["git -C sub show HEAD:", ["."], []],
    // `:/x` and `:(top)x` pathspecs are from the top too.
    ["git -C sub grep TOP :/secret", ["secret", "sub"], []],
    ["git -C sub grep TOP -- ':(top,glob)secret/*'", ["secret/*"], []],
    ["git -C sub grep TOP -- secret", ["sub/secret"], []],
    ["git config --blob=0123abcd -l", ["."], []],
    // benign controls: names, counts and configuration, no contents
    ["git reflog", [], []],
    ["git reflog show", [], []],
    ["git reflog show --oneline -5", [], []],
    ["git reflog exists HEAD", [], []],
    ["git shortlog -sn", [], []],
    ["git shortlog -c -s", [], []],
    ["git config --list", [], []],
  ])("%s", (command, reads, writes) => expectTargets(command, reads, writes));
});
