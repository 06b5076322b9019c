import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toolUse } from "../../../test/helpers.js";
import { fdir } from "fdir";
import { deniedPathRule } from "../../permissions/match.js";
import { parseRule, parseRuleLists } from "../../permissions/rule.js";
import { createSession } from "../../session/session.js";
import { crawlGlob, planGlob } from "../glob/crawl.js";
import { createGlobTool } from "../glob/glob.js";
import { createBuiltinEngine } from "../grep/builtin/engine.js";
import { BUILTIN_NOTICE, createGrepTool, type GrepToolOptions } from "../grep/grep.js";
import { createRipgrepEngine, findExecutable } from "../grep/ripgrep.js";
import type { GrepEntry, GrepQuery } from "../grep/types.js";
import { createReadDenyFilter } from "./deny.js";
import { displayPath } from "./paths.js";

/*
 * <tmp>/home            HOME for these tests
 *   .ssh/id_rsa         denied by ~ rules
 *   proj/               cwd
 *     .env  nested/deep/.env  upper/.ENV  secrets/key.txt  secrets/inner/more.txt
 *     abs/private.txt   denied by an absolute //… rule
 *     ok.txt nested/ok2.txt upper/fine.txt   allowed
 *     shortcut.txt -> secrets/key.txt         a link to a denied file
 *     alias.txt    -> ok.txt                  a link to an allowed file
 *   projlink -> proj                          a search root reached through a symlink
 */
let tmp: string;
let home: string;
let proj: string;
let savedHome: string | undefined;

const FILES: Record<string, string> = {
  ".env": "needle SECRET_ROOT_ENV\n",
  "nested/deep/.env": "needle SECRET_NESTED_ENV\n",
  "upper/.ENV": "needle SECRET_UPPER_ENV\n",
  "secrets/key.txt": "needle SECRET_KEY\n",
  "secrets/inner/more.txt": "needle SECRET_MORE\n",
  "abs/private.txt": "needle SECRET_ABS\n",
  "ok.txt": "before\nneedle allowed one\nafter\n",
  "nested/ok2.txt": "needle allowed two\n",
  "upper/fine.txt": "needle allowed three\n",
};

beforeAll(async () => {
  tmp = await realpath(await mkdtemp(join(tmpdir(), "armature-deny-")));
  home = join(tmp, "home");
  proj = join(home, "proj");
  for (const [name, text] of Object.entries(FILES)) {
    await mkdir(dirname(join(proj, name)), { recursive: true });
    await writeFile(join(proj, name), text);
  }
  await mkdir(join(home, ".ssh"), { recursive: true });
  await writeFile(join(home, ".ssh", "id_rsa"), "needle SECRET_SSH\n");
  await writeFile(join(home, "notes.txt"), "needle allowed home\n");
  await symlink(join(proj, "secrets", "key.txt"), join(proj, "shortcut.txt"));
  await symlink(join(proj, "ok.txt"), join(proj, "alias.txt"));
  await symlink(proj, join(tmp, "projlink"));
  savedHome = process.env.HOME;
  process.env.HOME = home;
});
afterAll(async () => {
  if (savedHome === undefined) delete process.env.HOME;
  else process.env.HOME = savedHome;
  await rm(tmp, { recursive: true, force: true });
});

const ENGINES: ReadonlyArray<readonly [string, GrepToolOptions]> = [
  ["ripgrep", { ripgrep: "rg" }],
  ["builtin", { ripgrep: false }],
];

async function run(tool: "Grep" | "Glob", deny: string[], input: Record<string, unknown>, options: GrepToolOptions = {}): Promise<string> {
  const tools = tool === "Grep" ? [createGrepTool(options)] : [createGlobTool()];
  const session = createSession({ cwd: proj, tools, deny, additionalDirectories: [tmp] });
  try {
    const [result] = await session.runTurn([toolUse(tool, input, "t1")]);
    expect(result!.is_error, String(result!.content)).not.toBe(true);
    return (result!.content as string).replace(`\n\n${BUILTIN_NOTICE}`, "");
  } finally {
    await session.close();
  }
}

interface Case {
  name: string;
  deny: string[];
  /** Search root (default: the project). */
  path?: string;
  /** Markers (file contents or names) that must never appear. */
  hidden: string[];
  /** Markers that must still appear. */
  shown: string[];
}

const CASES: () => Case[] = () => [
  { name: "Read(./.env): only the root .env", deny: ["Read(./.env)"], hidden: ["SECRET_ROOT_ENV"], shown: ["SECRET_NESTED_ENV", "allowed one"] },
  { name: "Read(.env): any depth, any case", deny: ["Read(.env)"], hidden: ["SECRET_ROOT_ENV", "SECRET_NESTED_ENV", "SECRET_UPPER_ENV"], shown: ["allowed one", "allowed three", "SECRET_KEY"] },
  { name: "Read(**/.env)", deny: ["Read(**/.env)"], hidden: ["SECRET_ROOT_ENV", "SECRET_NESTED_ENV", "SECRET_UPPER_ENV"], shown: ["allowed two"] },
  { name: "Read(./secrets/**): the folder and below", deny: ["Read(./secrets/**)"], hidden: ["SECRET_KEY", "SECRET_MORE"], shown: ["SECRET_ROOT_ENV", "allowed one"] },
  { name: "Read(./SECRETS/**): case-insensitive", deny: ["Read(./SECRETS/**)"], hidden: ["SECRET_KEY", "SECRET_MORE"], shown: ["allowed one"] },
  { name: "Read(secrets/inner/*.txt)", deny: ["Read(secrets/inner/*.txt)"], hidden: ["SECRET_MORE"], shown: ["SECRET_KEY"] },
  { name: "absolute //… rule into the tree", deny: [`Read(/${"/"}${"TMP"}/home/proj/abs/**)`], hidden: ["SECRET_ABS"], shown: ["allowed one"] },
  { name: "~ rule, searching home", deny: ["Read(~/.ssh/**)"], path: "HOME", hidden: ["SECRET_SSH"], shown: ["allowed home", "allowed one"] },
  { name: "~ rule naming the folder", deny: ["Read(~/.ssh)"], path: "HOME", hidden: ["SECRET_SSH"], shown: ["allowed home"] },
  { name: "rule anchored above the root (//…/proj/*/deep/**) seen from nested", deny: [`Read(/${"/"}TMP/home/proj/*/deep/**)`], path: "nested", hidden: ["SECRET_NESTED_ENV"], shown: ["allowed two"] },
  { name: "root through a symlink: canonical names are denied", deny: [`Read(/${"/"}TMP/home/proj/secrets/**)`], path: "LINK", hidden: ["SECRET_KEY", "SECRET_MORE"], shown: ["allowed one"] },
  { name: "extglob rule (not ripgrep syntax)", deny: ["Read(./secrets/+(key|nothing).txt)"], hidden: ["SECRET_KEY"], shown: ["SECRET_MORE", "allowed one"] },
  { name: "several rules at once", deny: ["Read(.env)", "Read(./secrets/**)", "Read(~/.ssh/**)"], path: "HOME", hidden: ["SECRET_ROOT_ENV", "SECRET_UPPER_ENV", "SECRET_KEY", "SECRET_SSH"], shown: ["allowed two", "allowed home"] },
];

function resolveCase(c: Case): { deny: string[]; path?: string } {
  const deny = c.deny.map((r) => r.replace("TMP", tmp.slice(1)));
  const path = c.path === "HOME" ? home : c.path === "LINK" ? join(tmp, "projlink") : c.path;
  return path === undefined ? { deny } : { deny, path };
}

/** Where a marker lives, as Grep and Glob show it for a search from `path`. */
function shownAs(marker: string, path: string | undefined): string {
  let rel: string;
  if (marker === "SECRET_SSH") rel = ".ssh/id_rsa";
  else if (marker === "allowed home") rel = "notes.txt";
  else rel = `proj/${Object.entries(FILES).find(([, text]) => text.includes(marker))![0]}`;
  const abs = path === join(tmp, "projlink") ? join(path, rel.slice("proj/".length)) : join(home, rel);
  return displayPath(abs, proj);
}

describe.each(ENGINES)("Grep with Read deny rules (%s)", (_engine, options) => {
  it("finds the home dir by HOME (the engine reads it)", () => {
    expect(homedir()).toBe(home);
  });

  for (const mode of ["content", "files_with_matches", "count"] as const) {
    it.each(CASES().map((c) => [c.name, c] as const))(`${mode}: %s`, async (_name, c) => {
      const { deny, path } = resolveCase(c);
      const text = await run("Grep", deny, { pattern: "needle", output_mode: mode, ...(path ? { path } : {}), "-B": 1, "-A": 1 }, options);
      const names = text.split("\n").map((l) => (mode === "count" ? l.replace(/:\d+$/, "") : l));
      for (const marker of c.hidden) {
        expect(text).not.toContain(marker);
        expect(names).not.toContain(shownAs(marker, path));
      }
      for (const marker of c.shown) {
        if (mode === "content") expect(text).toContain(marker);
        else expect(names).toContain(shownAs(marker, path));
      }
    });
  }

  it("counts only what is allowed", async () => {
    const text = await run("Grep", ["Read(.env)", "Read(./secrets/**)", "Read(./abs/**)"], { pattern: "needle", output_mode: "count" }, options);
    expect(text).toBe("nested/ok2.txt:1\nok.txt:1\nupper/fine.txt:1\n\nFound 3 total occurrences across 3 files.");
  });

  it("keeps the user's globs from bringing a denied file back", async () => {
    const text = await run("Grep", ["Read(.env)"], { pattern: "needle", glob: ".env", output_mode: "content" }, options);
    expect(text).toBe("No matches found");
  });

  it("a denied search root that the engine let through yields nothing", async () => {
    // `secrets/**` as written matches the folder itself only through its contents.
    const text = await run("Grep", ["Read(./secrets/inner/**)"], { pattern: "needle", path: "secrets/inner", output_mode: "content" }, options).catch((e: Error) => e.message);
    expect(text).not.toContain("SECRET_MORE");
  });

  it("rules that match nothing give the same output as no rules", async () => {
    for (const mode of ["content", "files_with_matches", "count"] as const) {
      const input = { pattern: "needle|before|after", output_mode: mode, "-C": 1 };
      const plain = await run("Grep", [], input, options);
      const ruled = await run("Grep", ["Read(//nonexistent/**)", "Read(~/.aws/**)", "Edit(.env)", "Read(*.nothing)"], input, options);
      expect(ruled).toBe(plain);
    }
  });

  it("content separators are not left dangling where a denied file was", async () => {
    const text = await run("Grep", ["Read(.env)", "Read(./secrets/**)", "Read(./abs/**)"], { pattern: "needle", output_mode: "content", "-C": 1 }, options);
    expect(text).toBe("nested/ok2.txt:1:needle allowed two\n--\nok.txt-1-before\nok.txt:2:needle allowed one\nok.txt-3-after\n--\nupper/fine.txt:1:needle allowed three");
  });
});

describe("Glob with Read deny rules", () => {
  it.each(CASES().map((c) => [c.name, c] as const))("%s", async (_name, c) => {
    const { deny, path } = resolveCase(c);
    const text = await run("Glob", deny, { pattern: "**/*", ...(path ? { path } : {}) });
    const listed = text.split("\n");
    for (const marker of c.hidden) expect(listed).not.toContain(shownAs(marker, path));
    for (const marker of c.shown) expect(listed).toContain(shownAs(marker, path));
  });

  it("a symlink to a denied file is not listed; one to an allowed file is", async () => {
    const text = await run("Glob", ["Read(./secrets/**)"], { pattern: "./*.txt" });
    expect(text.split("\n").sort()).toEqual(["alias.txt", "ok.txt"]);
    const plain = await run("Glob", [], { pattern: "./*.txt" });
    expect(plain.split("\n").sort()).toEqual(["alias.txt", "ok.txt", "shortcut.txt"]);
  });

  it("a denied folder named in the pattern lists nothing", async () => {
    expect(await run("Glob", ["Read(./secrets/inner/**)"], { pattern: "secrets/inner/*" }).catch((e: Error) => e.message)).not.toContain("more.txt");
  });

  it("rules that match nothing give the same listing as no rules", async () => {
    const plain = await run("Glob", [], { pattern: "**/*" });
    expect(await run("Glob", ["Read(//nonexistent/**)", "Edit(.env)", "Read(*.nothing)"], { pattern: "**/*" })).toBe(plain);
  });
});

/** The exclusions alone (no post-filter): ripgrep and the built-in walk never open a denied file. */
describe("exclusion at the source", () => {
  const rgBinary = findExecutable("rg");
  const engines = [["builtin", () => createBuiltinEngine()] as const, ...(rgBinary ? [["ripgrep", () => createRipgrepEngine(rgBinary)] as const] : [])];

  async function rawSearch(engineName: string, deny: string[], root: string): Promise<string[]> {
    const filter = createReadDenyFilter(parseRuleLists({ deny }, "test"), proj, home);
    const query: GrepQuery = {
      pattern: "needle", root, rootIsFile: false, mode: "files_with_matches", caseInsensitive: false, onlyMatching: false,
      multiline: false, before: 0, after: 0, globs: [], signal: new AbortController().signal,
    };
    const engine = engines.find(([n]) => n === engineName)![1]();
    if (engineName === "ripgrep") {
      const excludes = filter.ripgrepExcludes(root);
      expect(excludes).toBeDefined();
      query.excludeGlobs = excludes!;
    } else query.skip = (p, isDir) => filter.denies(p, isDir ? "dir" : "file");
    const found: GrepEntry[] = [];
    await engine.search(query, (e) => found.push(e) > 0);
    return found.flatMap((e) => (e.kind === "file" ? [e.path.slice(root.length + 1)] : [])).sort();
  }

  it.each(engines.map(([n]) => [n]))("%s", async (engineName) => {
    const table: Array<{ deny: string[]; root?: string; expected: string[] }> = [
      { deny: ["Read(.env)"], expected: ["abs/private.txt", "nested/ok2.txt", "ok.txt", "secrets/inner/more.txt", "secrets/key.txt", "upper/fine.txt"] },
      { deny: ["Read(./secrets/**)", "Read(./ABS)"], expected: [".env", "nested/deep/.env", "nested/ok2.txt", "ok.txt", "upper/.ENV", "upper/fine.txt"] },
      { deny: [`Read(//${tmp.slice(1)}/home/proj/*/deep/**)`, "Read(./upper/*.txt)"], expected: [".env", "abs/private.txt", "nested/ok2.txt", "ok.txt", "secrets/inner/more.txt", "secrets/key.txt", "upper/.ENV"] },
      { deny: ["Read(~/proj/secrets/**)", "Read(**/.env)", "Read(abs/**)"], root: join(tmp, "projlink"), expected: ["nested/ok2.txt", "ok.txt", "upper/fine.txt"] },
      { deny: ["Read(~/.ssh/**)"], root: home, expected: ["notes.txt", ...Object.keys(FILES).map((f) => `proj/${f}`)].sort() },
    ];
    for (const row of table) expect(await rawSearch(engineName, row.deny, row.root ?? proj), row.deny.join(" ")).toEqual(row.expected.sort());
  });

  it("denied folders are never entered (built-in walk and Glob crawl)", async () => {
    const filter = createReadDenyFilter(parseRuleLists({ deny: ["Read(./secrets/**)", "Read(nested)"] }, "test"), proj, home);
    const asked: string[] = [];
    const skip = (p: string, kind: "file" | "dir" | "symlink"): boolean => {
      asked.push(p);
      return filter.denies(p, kind);
    };
    const query: GrepQuery = {
      pattern: "needle", root: proj, rootIsFile: false, mode: "count", caseInsensitive: false, onlyMatching: false,
      multiline: false, before: 0, after: 0, globs: [], signal: new AbortController().signal, skip: (p, isDir) => skip(p, isDir ? "dir" : "file"),
    };
    await createBuiltinEngine().search(query, () => true);
    await crawlGlob(planGlob("**/*", proj), 100, new AbortController().signal, skip);
    expect(asked).toContain(join(proj, "secrets"));
    expect(asked).toContain(join(proj, "nested"));
    expect(asked.filter((p) => p.startsWith(join(proj, "secrets") + "/") || p.startsWith(join(proj, "nested") + "/"))).toEqual([]);
  });

  it.each(engines.map(([n]) => [n]))("%s: a /x rule is anchored at its settings file's project, not the cwd", async (engineName) => {
    const rules = [parseRule("Read(/secrets/**)", "deny", join(proj, ".armature", "settings.json"), proj)];
    const filter = createReadDenyFilter(rules, join(proj, "nested"), home);
    const query: GrepQuery = {
      pattern: "needle", root: proj, rootIsFile: false, mode: "files_with_matches", caseInsensitive: false, onlyMatching: false,
      multiline: false, before: 0, after: 0, globs: [], signal: new AbortController().signal,
    };
    if (engineName === "ripgrep") query.excludeGlobs = filter.ripgrepExcludes(proj)!;
    else query.skip = (p, isDir) => filter.denies(p, isDir ? "dir" : "file");
    const found: string[] = [];
    await engines.find(([n]) => n === engineName)![1]().search(query, (e) => found.push("path" in e ? e.path : "") > 0);
    expect(found.some((p) => p.includes("/secrets/"))).toBe(false);
    expect(found).toContain(join(proj, "ok.txt"));
  });

  it("judges every path exactly as the permission engine does (folder pruning loses nothing)", async () => {
    const rules = parseRuleLists({
      deny: [
        "Read(.env)", "Read(**/deep)", "Read(./n?sted/*/.e*)", "Read(./{secrets,abs}/**)", "Read(./UPPER/[.]ENV)", "Read(~/proj/**/more.txt)",
        `Read(//${tmp.slice(1)}/home/*/nested/**)`, "Read(//etc/**)", "Read(src/**)", "Read(./secrets/inner)", "Read(*.TXT)",
      ],
    }, "test");
    const all = [home, ...(await new fdir().withFullPaths().withDirs().crawl(home).withPromise()).map((p) => p.replace(/\/$/, ""))];
    for (const rule of rules) {
      const filter = createReadDenyFilter([rule], proj, home);
      for (const path of all) {
        const expected = deniedPathRule([rule], path, "read", { cwd: proj, home }) !== undefined;
        expect(filter.denies(path), `${rule.raw} on ${path}`).toBe(expected);
      }
    }
  });

  it("rules ripgrep cannot read the same way are not handed to it", () => {
    const filter = createReadDenyFilter(parseRuleLists({ deny: ["Read(./secrets/+(a|b))"] }, "test"), proj, home);
    expect(filter.ripgrepExcludes(proj)).toBeUndefined();
  });

  it("turns rules into globs anchored at the search folder", () => {
    const filter = createReadDenyFilter(parseRuleLists({ deny: ["Read(.env)", "Read(./secrets/**)", `Read(//${tmp.slice(1)}/home/proj/*/deep/**)`, "Read(//etc/**)"] }, "test"), proj, home);
    expect(filter.ripgrepExcludes(join(proj, "nested"))!.sort()).toEqual(["!/**/.env", "!/.env", "!/deep/**", "!/deep"].sort());
    expect(filter.ripgrepExcludes(proj)!.sort()).toEqual(["!/**/.env", "!/.env", "!/*/deep/**", "!/*/deep", "!/secrets/**", "!/secrets"].sort());
    expect(filter.ripgrepExcludes(join(proj, "secrets"))).toContain("!/**");
  });
});

