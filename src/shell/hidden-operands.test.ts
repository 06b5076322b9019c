// Issue 19: words whose expansion hands a reading command operands or options its argv does not
// show are reads not known in advance (hidden-operands.ts).
import { describe, expect, it } from "vitest";
import { analyzeCommand } from "./index.js";
import { isStaticWord } from "./shared.js";

/** The read targets of the command that are not known before it runs. */
const unknownReads = (command: string): string[] => analyzeCommand(command).readTargets.filter((t) => !isStaticWord(t));

describe("hidden operands", () => {
  it.each([
    ["grep -e $(echo x /etc/passwd) README.md", "an unquoted substitution as -e's value"],
    ["grep -e$(echo x .env) README.md", "attached to the option"],
    ["grep -e `echo x .env` README.md", "backquotes"],
    ["grep -e $v README.md", "an unquoted variable"],
    ["grep -e ${v} README.md", "braced"],
    ["grep $(echo x .env) README.md", "the pattern operand"],
    ["grep --include=$(echo '*.md' .env) x README.md", "a long option's value"],
    ["grep -e {x,.env} README.md", "a brace pattern"],
    ["p='x .env'; grep -e $p README.md", "a literal value with a blank"],
    ['a=(x .env); grep -e "${a[@]}" README.md', "an array, quoted"],
    ['grep -e "$@" README.md', "the positional parameters, quoted"],
    ["for o in -r; do grep $o SECRET .; done", "a loop value that is an option"],
    ['for o in -r; do grep "$o" SECRET .; done', "the same, quoted"],
    ['grep "$(printf -- -r)" SECRET .', "a quoted substitution in an operand's place may be an option"],
    ['for o in -r; do grep -e x "$o" .; done', "a loop value that is an option where a file is read"],
    ["for o in -r; do cat $o; done", "the same for cat"],
    ["head -n $(echo 1 .env) README.md", "head -n"],
    ["cut -d $(echo , .env) -f1 README.md", "cut -d"],
    ["diff --label $(echo x .env) a b", "diff --label"],
    ["ls -I $(echo x /root)", "ls -I"],
    ["sort -k $(echo 1 .env) README.md", "sort -k"],
    ["find . -newer $(echo x .env) -name a", "find -newer"],
    ["git log -S $(echo x .env) -- src", "git log -S"],
    ["chmod $(echo 644 .claude/settings.json) x", "chmod's mode"],
    ["test -n $x", "test, split"],
    ["[ $x ]", "[, an unquoted variable alone"],
    ["[ -n $x ]", "[ -n, split"],
    ["[ $(echo -f .env) ]", "[, a substitution"],
    ["[ * ]", "[, a glob (a file named -f)"],
    ["if [ -z $x ]; then echo y; fi", "[ in an if"],
    ["grep -e $(git ls-files) README.md", "a producer in an option's place"],
  ])("%s has a read not known in advance (%s)", (command) => {
    expect(unknownReads(command)).not.toEqual([]);
  });

  it.each([
    ["grep -e \"$(echo x)\" README.md", "a quoted substitution as an option's value is one word"],
    ['head -n "$v" README.md', "the same with a variable"],
    ["p=TODO; grep -n -e $p README.md", "a variable known to hold one plain word"],
    ['for p in foo bar; do grep -n "$p" README.md; done', "loop values known, none an option"],
    ["tail -n +$((1+1)) README.md", "arithmetic is one number"],
    ['grep -n x "$(echo a)"x README.md', "a static part after it does not make it an option"],
    ["cat <(echo x) README.md", "a process substitution is one path"],
    ['basename "$(pwd)"', "basename names no file"],
    ['test -z "$x"', "test with a quoted word"],
    ['[ -n "$x" ]', "[ with a quoted word"],
    ['[ "$x" = yes ]', "[ comparing a quoted word"],
    ["[[ -n $x ]]", "[[ neither splits nor globs"],
    ["[[ $x == *.ts ]]", "[[ pattern matching"],
    ["[ -f README.md ]", "[ with static words"],
    ['echo $(date) $x', "echo reads no file"],
    ['git commit -m "$(cat <<\'EOF\'\nmessage\nEOF\n)"', "git commit -m's value"],
    ['git -C "$d" status', "a git option's value"],
    ["wc -l $(git ls-files)", "a producer in a file operand's place is judged by its names"],
    ["git ls-files | xargs grep -n TODO", "the same through xargs"],
  ])("%s adds no hidden read (%s)", (command) => {
    const reads = analyzeCommand(command).readTargets;
    expect(reads.filter((t) => t.includes(", given to "))).toEqual([]);
  });
});
