// The table check: every modelled command installed on this machine is asked for its options
// (`--help`, or `git <sub> -h`), and a long option it lists that its table lacks fails the test
// (a missing option would be read as unknown, or worse, an abbreviation would resolve to the
// wrong one). Tools missing here are skipped one by one, and the run says which. A name is asked
// as the program it really is here: Debian's `awk` and `nawk` are mawk unless gawk is installed,
// and mawk takes `-W usage` and lists no long options.
import { execFileSync, spawnSync } from "node:child_process";
import { realpathSync } from "node:fs";
import { basename } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { helpLongOptions, helpOptionPairs } from "./help-options.js";
import { GIT_SUBCOMMANDS, tableFor, tableNames } from "./index.js";
import type { CommandTable } from "./types.js";

/** How to ask a tool for its options, when not `--help`. */
const HELP_ARGS: Record<string, string[]> = { mawk: ["-W", "usage"], xz: ["--long-help"], unxz: ["--long-help"], xzcat: ["--long-help"], lzma: ["--long-help"], unlzma: ["--long-help"], strace: ["-h"], curl: ["--help", "all"] };

/** Tools whose help lists no long options (fakeroot names its few in a usage line). */
const NO_LONG_OPTIONS_LISTED = new Set(["fakeroot", "mawk"]);

/** Tables that are partial by design (their tools take per-plugin or per-tool options). */
const NOT_CHECKED = new Set(["valgrind", "systemd-run", "dd", "tree", "nocache"]);

function installed(name: string): boolean {
  return spawnSync("sh", ["-c", `command -v -- "$1" >/dev/null`, "sh", name]).status === 0;
}

/** The file `name` runs from here, when it is a file (not a shell builtin). */
function located(name: string): string | undefined {
  const r = spawnSync("sh", ["-c", `command -v -- "$1"`, "sh", name], { encoding: "utf8" });
  const path = r.stdout.trim();
  return r.status === 0 && path.startsWith("/") ? path : undefined;
}

/**
 * The awk a name runs on this machine (`awk` and `nawk` are alternatives symlinks to mawk or
 * gawk; an awk installed as a copy says in its version banner). Other names are themselves.
 */
function implementationOf(name: string): string {
  const path = located(name);
  if (path === undefined || !/^n?awk$/.test(name)) return name;
  const real = basename(realpathSync(path));
  if (real === "mawk" || real === "gawk") return real;
  const banner = helpText(path, ["-W", "version"]);
  if (/^mawk\b/m.test(banner)) return "mawk";
  if (/GNU Awk/.test(banner)) return "gawk";
  return name;
}

function helpText(command: string, args: string[]): string {
  const r = spawnSync(command, args, { encoding: "utf8", timeout: 20_000, env: { ...process.env, LC_ALL: "C", PAGER: "cat", MANPAGER: "cat" } });
  return `${r.stdout ?? ""}\n${r.stderr ?? ""}`;
}

function tableLongNames(table: CommandTable): Set<string> {
  const names = new Set<string>();
  for (const entry of table.long ?? []) names.add(entry.replace(/\|.*$/, "").replace(/>.*$/, "").replace(/=\??$/, ""));
  return names;
}

function missing(table: CommandTable, help: string): string[] {
  const names = tableLongNames(table);
  const out: string[] = [];
  for (const name of helpLongOptions(help).keys()) {
    if (names.has(name)) continue;
    // parse-options and curl read `--no-NAME` as NAME switched off (and `--NAME` for a `no-NAME` option).
    if (table.style === "git" && (names.has(name.replace(/^no-/, "")) || names.has(`no-${name}`))) continue;
    out.push(`--${name}`);
  }
  return out;
}

/** The table's `name|x` pairs: letter → long name. */
function tablePairs(table: CommandTable): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of table.long ?? []) {
    const m = /^([^=|>]+)(?:=\??)?\|(.+)$/.exec(entry);
    if (m) for (const letter of m[2] as string) out.set(letter, m[1] as string);
  }
  return out;
}

/**
 * Where the table's short↔long pairs and the help's `-x, --long` lines disagree: a letter the help
 * pairs with a long option the table also has, unpaired or paired otherwise; a table pair the help
 * contradicts (a help that lists only some options, as zgrep's, leaves the rest unchecked).
 */
function pairMismatches(table: CommandTable, help: string): string[] {
  const letters = new Set((table.short ?? "").replace(/[:+-]/g, ""));
  const names = tableLongNames(table);
  const ours = tablePairs(table);
  const theirs = new Map<string, string>();
  for (const [long, ls] of helpOptionPairs(help)) for (const l of ls) theirs.set(l, long);
  const out: string[] = [];
  for (const [l, long] of theirs) {
    // `--help` and `--version` come from one shared list; their letters are not read as them.
    if (letters.has(l) && names.has(long) && long !== "help" && long !== "version" && ours.get(l) !== long) out.push(`-${l} is --${long} (table: ${ours.has(l) ? `--${ours.get(l)}` : "unpaired"})`);
  }
  for (const [l, long] of ours) {
    if (!letters.has(l)) out.push(`-${l} (paired with --${long}) is not in the short options`);
    else if (theirs.has(l) && theirs.get(l) !== long) out.push(`table pairs -${l} with --${long}, help with --${theirs.get(l)}`);
  }
  return out;
}

const skipped: string[] = [];
const pairsChecked: string[] = [];
afterAll(() => {
  if (skipped.length > 0) console.log(`table check skipped (not installed here): ${skipped.join(", ")}`);
  if (pairsChecked.length > 0) console.log(`short/long pairs checked against the help of: ${pairsChecked.join(", ")}`);
});

describe("option tables against the installed tools' --help", () => {
  for (const name of tableNames().filter((n) => !NOT_CHECKED.has(n))) {
    const table = tableFor(name) as CommandTable;
    if (table.partial) continue;
    const present = installed(name);
    if (!present) skipped.push(name);
    const program = present ? implementationOf(name) : name;
    const shown = program === name ? name : `${name} (${program} here)`;
    it.skipIf(!present)(`${shown}: every long option its help lists is in the table`, () => {
      const help = helpText(name, HELP_ARGS[program] ?? ["--help"]);
      if (!NO_LONG_OPTIONS_LISTED.has(program)) expect(helpLongOptions(help).size, `${shown} --help listed no long options`).toBeGreaterThan(0);
      expect(missing(table, help), `${name}: long options missing from its table`).toEqual([]);
      if (!NO_LONG_OPTIONS_LISTED.has(program)) {
        expect(pairMismatches(table, help), `${name}: short options paired unlike its help`).toEqual([]);
        pairsChecked.push(name);
      }
    });
  }
});

const haveGit = installed("git");
describe.skipIf(!haveGit)("git subcommand tables against `git <sub> -h`", () => {
  if (!haveGit) skipped.push("git");
  const version = haveGit ? execFileSync("git", ["--version"], { encoding: "utf8" }).trim() : "";
  for (const [sub, table] of Object.entries(GIT_SUBCOMMANDS)) {
    it(`git ${sub} (${version})`, () => {
      const help = helpText("git", [sub, "-h"]);
      expect(missing(table, help), `git ${sub}: long options missing from its table`).toEqual([]);
      expect(pairMismatches(table, help), `git ${sub}: short options paired unlike its help`).toEqual([]);
      pairsChecked.push(`git ${sub}`);
    });
  }
});

describe("helpOptionPairs reads the letters of option lines", () => {
  it("pairs each line's short letters with its long option", () => {
    const help = [
      "  -o, --output=FILE   write to FILE",
      "  -r, -R, --recursive   recurse",
      "    -e PATTERN, --regexp=PATTERN   pattern",
      "    -n, --[no-]dry-run    dry run",
      "      --strings[=N]   no letter",
      "  -e trace=SET, --trace=SET   one letter for several options",
      "  -e signal=SET, --signal=SET",
    ].join("\n");
    expect(Object.fromEntries(helpOptionPairs(help))).toEqual({ output: "o", recursive: "rR", "dry-run": "n" });
  });
});

describe("helpLongOptions reads option lines, not prose", () => {
  it("finds long options and their value shapes", () => {
    const help = [
      "Usage: x [OPTION]... FILE",
      "  -o, --output=FILE   write to FILE, like --not-an-option in prose",
      "  -c  --format=FORMAT   use FORMAT",
      "      --strings[=N]   optional value",
      "  -F LINES  --fuzz LINES  fuzz",
      "    -e, --regexp <PATTERN>   pattern",
      "    --[no-]verify   verify",
      "See --help-all for more.",
    ].join("\n");
    const found = helpLongOptions(help);
    expect(Object.fromEntries(found)).toEqual({
      output: "required", format: "required", strings: "optional", fuzz: "required", regexp: "required", verify: "none", "no-verify": "none",
    });
  });
});
