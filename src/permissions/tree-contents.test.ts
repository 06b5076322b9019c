import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { namedTool, request } from "../../test/permission-helpers.js";
import { analyzeCommand } from "../shell/index.js";
import type { PermissionMode } from "../tool/types.js";
import { resolvePermission } from "./resolve.js";

// Archives, patches and trees built for real (the tar, zip and python3 binaries), extracted or
// copied into `build/` of a project, judged through the real permission engine.
let root: string;
let proj: string;

/** Files (content, or `{ link }` for a symlink) below a staging directory. */
type Tree = Record<string, string | { link: string }>;

function stage(name: string, tree: Tree): string {
  const dir = join(root, "stage", name);
  for (const [rel, spec] of Object.entries(tree)) {
    const path = join(dir, rel);
    mkdirSync(dirname(path), { recursive: true });
    if (typeof spec === "string") writeFileSync(path, spec);
    else symlinkSync(spec.link, path);
  }
  return dir;
}

/** A tar of a staged tree, written into the project, with extra tar flags (format, compression). */
function tar(file: string, tree: Tree, flags: string[] = []): void {
  const dir = stage(file, tree);
  execFileSync("tar", ["-c", ...flags, "-f", join(proj, file), "-C", dir, "."]);
}

function zip(file: string, tree: Tree): void {
  const dir = stage(file, tree);
  execFileSync("zip", ["-qry", join(proj, file), "."], { cwd: dir });
}

/** Archives with names the tools refuse to write (`../x`, `/abs`): python3's tarfile/zipfile. */
function crafted(file: string, kind: "tar" | "zip", entries: Array<{ name: string; link?: string; hard?: boolean }>): void {
  const script = `
import json, sys, tarfile, zipfile, io
kind, out, entries = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
if kind == "tar":
    with tarfile.open(out, "w", format=tarfile.GNU_FORMAT) as t:
        for e in entries:
            info = tarfile.TarInfo(e["name"])
            if "link" in e:
                info.type = tarfile.LNKTYPE if e.get("hard") else tarfile.SYMTYPE
                info.linkname = e["link"]
                t.addfile(info)
            else:
                data = b"x\\n"; info.size = len(data); t.addfile(info, io.BytesIO(data))
else:
    with zipfile.ZipFile(out, "w") as z:
        for e in entries:
            if "link" in e:
                info = zipfile.ZipInfo(e["name"]); info.create_system = 3; info.external_attr = (0o120777 << 16)
                z.writestr(info, e["link"])
            else:
                z.writestr(e["name"], "x\\n")
`;
  execFileSync("python3", ["-c", script, kind, join(proj, file), JSON.stringify(entries)]);
}

const SRC: Tree = { "src/index.ts": "export {};\n", "src/lib/util.ts": "export {};\n", "docs/git.txt": "about git\n", "README.md": "r\n" };
const MODULES: Tree = { "node_modules/left-pad/index.js": "module.exports = 1;\n", "node_modules/left-pad/package.json": "{}\n", "node_modules/.bin/lp": { link: "../left-pad/index.js" } };

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "armature-tree-contents-")));
  proj = join(root, "proj");
  mkdirSync(join(proj, "build"), { recursive: true });
  mkdirSync(join(proj, ".git", "hooks"), { recursive: true });
  // A directory holding a symlink (`src -> ../.git`): writing below it writes into .git.
  mkdirSync(join(proj, "build2"));
  symlinkSync("../.git", join(proj, "build2", "src"));

  tar("src.tar", SRC);
  tar("src.tgz", SRC, ["-z"]);
  tar("modules.tar.gz", MODULES, ["-z"]);
  tar("pax.tar", { [`${"deep/".repeat(30)}index.ts`]: "x\n" }, ["--format=pax"]);
  tar("hooks.tar", { ".git/hooks/pre-commit": "#!/bin/sh\n" });
  tar("hooks.tgz", { ".git/hooks/pre-commit": "#!/bin/sh\n" }, ["-z"]);
  tar("config.tar", { ".git/config": "[core]\n\tfsmonitor = ./x\n" });
  tar("nested.tar", { "x/.git/hooks/post-checkout": "#!/bin/sh\n" });
  tar("husky.tar", { ".husky/pre-commit": "x\n" });
  tar("claude.tar", { ".claude/settings.json": "{}\n" });
  tar("envrc.tar", { "pkg/.envrc": "x\n" });
  tar("workflow.tar", { ".github/workflows/ci.yml": "x\n" });
  tar("long-gnu.tar", { [`${"deep/".repeat(30)}.git/hooks/x`]: "x\n" }, ["--format=gnu"]);
  tar("long-pax.tar", { [`${"deep/".repeat(30)}.husky/x`]: "x\n" }, ["--format=pax"]);
  tar("long-ustar.tar", { [`${"deep/".repeat(20)}.envrc`]: "x\n" }, ["--format=ustar"]);
  tar("strip.tar", { "pkg/.git/hooks/pre-commit": "x\n", "pkg/src/index.ts": "x\n" });
  tar("pkg.tar", { "pkg/src/index.ts": "x\n", "pkg/README.md": "x\n" });
  tar("mixed.tar", { "src/index.ts": "x\n", ".git/hooks/pre-commit": "x\n" });
  tar("gitdir.tar", { HEAD: "ref: refs/heads/main\n", config: "[core]\n\tfsmonitor = ./x\n", "objects/.keep": "" });
  tar("link-in.tar", { "hooks": { link: ".git/hooks" }, ".keep": "" });
  tar("link-out.tar", { "up": { link: "../../.." } });
  tar("link-ok.tar", { "src/a.ts": "x\n", "latest": { link: "src/a.ts" } });
  tar("bz.tar.bz2", SRC, ["-j"]);
  tar("xz.tar.xz", SRC, ["-J"]);
  crafted("dotdot.tar", "tar", [{ name: "../escape.txt" }]);
  crafted("abs.tar", "tar", [{ name: `${root}/outside/note.txt` }]);
  crafted("abs-bashrc.tar", "tar", [{ name: "/home/u/.bashrc" }]);
  crafted("hard-out.tar", "tar", [{ name: "h", link: "../../etc/passwd", hard: true }]);
  crafted("chain.tar", "tar", [{ name: "a", link: ".github" }, { name: "a/workflows/ci.yml" }]);
  execFileSync("mkfifo", [join(proj, "pipe.tar"), join(proj, "pipe.patch")]);
  writeFileSync(join(proj, "corrupt.tar"), Buffer.concat([Buffer.alloc(512, 0x41), Buffer.alloc(1024)]));

  zip("src.zip", SRC);
  zip("modules.zip", MODULES);
  zip("hooks.zip", { ".git/hooks/pre-commit": "x\n" });
  zip("claude.zip", { "a/.claude/settings.json": "{}\n" });
  zip("link.zip", { "l": { link: "../../.git" } });
  crafted("dotdot.zip", "zip", [{ name: "../escape.txt" }]);
  crafted("backslash.zip", "zip", [{ name: "pkg\\.husky\\pre-commit" }]);
  crafted("zlink.zip", "zip", [{ name: "cfg", link: ".git/config" }]);

  stage("../proj/trees/src", SRC);
  stage("../proj/trees/modules", MODULES);
  stage("../proj/trees/evil", { ".git/hooks/pre-commit": "x\n", "ok.txt": "x\n" });
  stage("../proj/trees/deep", { "a/b/.husky/pre-commit": "x\n" });
  stage("../proj/trees/settings", { ".claude/settings.json": "{}\n" });
  stage("../proj/trees/links", { "l": { link: "../../../.git" } });
  stage("../proj/trees/dot", { ".envrc": "x\n", ".npmrc": "x\n", "git.txt": "x\n" });

  const patch = (name: string, file: string): void =>
    writeFileSync(join(proj, name), `--- a/${file}\n+++ b/${file}\n@@ -0,0 +1,2 @@\n+#!/bin/sh\n+touch /tmp/pwned\n`);
  patch("src.patch", "src/index.ts");
  patch("hooks.patch", ".git/hooks/pre-commit");
  patch("envrc.patch", "x/.envrc");
  writeFileSync(join(proj, "body.patch"), "--- a/src/a.sql\n+++ b/src/a.sql\n@@ -1,2 +1,1 @@\n--- .git/hooks/x\n -- keep\n");
  writeFileSync(join(proj, "git.patch"), "diff --git a/l b/l\nnew file mode 120000\n--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+.git/hooks\n");
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function decide(command: string, mode: PermissionMode, allow: string[] = []) {
  const subject = { kind: "shell" as const, facts: analyzeCommand(command) };
  return resolvePermission(request({ tool: namedTool("Bash"), subject, cwd: proj, mode, allow }));
}

const ATTACKS: Array<[string, RegExp]> = [
  ["tar xf hooks.tar -C build", /\.git/],
  ["tar -xzf hooks.tgz -C build", /\.git/],
  ["tar xf hooks.tgz --directory=build", /\.git/],
  ["tar -x -f config.tar -C build", /\.git/],
  ["tar xf nested.tar -C build", /x\/\.git/],
  ["tar xf husky.tar -C build", /\.husky/],
  ["tar xf claude.tar -C build", /\.claude/],
  ["tar xf envrc.tar -C build", /\.envrc/],
  ["tar xf workflow.tar -C build", /\.github\/workflows/],
  ["tar xf long-gnu.tar -C build", /\.git/],
  ["tar xf long-pax.tar -C build", /\.husky/],
  ["tar xf long-ustar.tar -C build", /\.envrc/],
  ["tar xf strip.tar -C build --strip-components=1", /\.git/],
  ["tar xf mixed.tar -C build ./.git", /\.git/],
  ["tar xf hooks.tar -C build .", /\.git/],
  ["tar xf mixed.tar -C build --ignore-case ./.GIT", /\.git/],
  ["tar xf src.tar -C build2", /through a symlink to .*\.git/],
  ["cp -r trees/src build2", /through a symlink to .*\.git/],
  ["tar xf nested.tar -C build --exclude=.gi", /\.git/],
  ["tar xf nested.tar -C build --anchored --exclude=.git", /\.git/],
  ["tar xf nested.tar -C build --exclude='{.git,y}'", /\.git/],
  ["tar xf gitdir.tar -C build", /act as a git directory/],
  ["tar xf link-in.tar -C build", /symlink .*hooks.*\.git/],
  ["tar xf link-out.tar -C build", /symlink .*up.*outside/],
  ["tar xf chain.tar -C build", /\.github\/workflows/],
  ["tar xf dotdot.tar -C build", /leads outside/],
  ["tar -xPf abs.tar -C build", /absolute name outside/],
  ["tar xf abs-bashrc.tar -C build", /\.bashrc/],
  ["tar xf hard-out.tar -C build", /hard link .*outside/],
  ["tar xjf bz.tar.bz2 -C build", /bzip2-compressed/],
  ["tar xf xz.tar.xz -C build", /xz-compressed/],
  ["tar xf corrupt.tar -C build", /not a valid tar header/],
  ["tar xf missing.tar -C build", /does not exist yet/],
  ["tar xf - -C build", /standard input/],
  // A FIFO would block the decision (and is what the command itself reads): never opened for reading.
  ["tar xf pipe.tar -C build", /not a regular file/],
  ["unzip pipe.tar -d build", /not a regular file/],
  ["patch -p1 -d build -i pipe.patch", /not a readable regular file/],
  ["cat src.tar | tar x -C build", /standard input/],
  ["tar xf host:src.tar -C build", /another host/],
  ["tar xf src.tar --transform s/src/.git/ -C build", /--transform/],
  ["tar xf src.tar -C .", /working directory/],
  ["unzip hooks.zip -d build", /\.git/],
  ["unzip -o -d build claude.zip", /\.claude/],
  ["unzip -d build link.zip", /symlink .*outside/],
  ["unzip -d build zlink.zip", /symlink .*\.git/],
  ["unzip -d build dotdot.zip", /leads outside/],
  ["unzip -d build backslash.zip", /\.husky/],
  ["unzip -d build 'src*.zip'", /expands/],
  ["cp -r trees/evil build", /\.git/],
  ["cp -r trees/deep build", /\.husky/],
  ["cp -R trees/settings/. build", /\.claude/],
  ["cp -a trees/links build", /symlink .*outside/],
  ["cp -r trees/evil build/new", /\.git/],
  ["cp -r -t build trees/src trees/evil", /\.git/],
  ["rsync -a trees/evil/ build/", /\.git/],
  ["rsync -a trees/deep build", /\.husky/],
  ["rsync -a --include=.git --exclude=.git trees/evil/ build/", /\.git/],
  ["rsync -a --exclude .gi trees/evil/ build/", /\.git/],
  ["rsync -a host:trees/src build", /another host/],
  ["mv trees/deep build", /\.husky/],
  ["cp -r trees/nothing-here build", /does not exist yet/],
  // A file copied, moved, linked or installed into a directory writes its name there.
  ["cp trees/settings/.claude/settings.json build/.claude", /\.claude/],
  ["cp trees/dot/.envrc build", /\.envrc/],
  ["cp -t build trees/dot/.npmrc", /\.npmrc/],
  ["mv trees/dot/.envrc build/", /\.envrc/],
  ["ln -s ../trees/dot/.envrc build", /\.envrc/],
  ["ln -s ../../.git build/", /\.git/],
  ["install -m 644 trees/dot/.envrc build", /\.envrc/],
  ["patch -p1 -d build < hooks.patch", /\.git/],
  ["patch -p1 -d build -i envrc.patch", /\.envrc/],
  ["patch -d build -p0 < hooks.patch", /\.git/],
  ["cat hooks.patch | patch -p1 -d build", /standard input/],
  ["patch -p1 -d build < git.patch", /symlink/],
];

const BENIGN = [
  "tar xf src.tar -C build",
  "tar -xzf src.tgz -C build",
  "tar xzf modules.tar.gz -C build",
  "tar xf pax.tar -C build",
  "tar xf pkg.tar -C build --strip-components=1",
  "tar xf strip.tar -C build pkg/src",
  // Three components stripped: pkg/.git/hooks/pre-commit lands as hooks/pre-commit (or pre-commit), nothing in a .git.
  "tar xf strip.tar -C build --strip-components=3",
  "tar xf mixed.tar -C build src",
  "tar xf link-ok.tar -C build",
  "tar x -C build < src.tar",
  "unzip src.zip -d build",
  "unzip -q modules.zip -d build",
  "cp -r trees/src build",
  "cp -r trees/modules build/modules",
  "cp -a trees/src/. build",
  "rsync -a trees/src/ build/",
  "rsync -a trees/modules build",
  "rsync -a --exclude .git trees/evil/ build/",
  "rsync -a --exclude=.git --exclude node_modules trees/evil build",
  "tar xf mixed.tar -C build --exclude=.git",
  "tar xf nested.tar -C build --exclude .git",
  "patch -p1 -d build < src.patch",
  "cp trees/dot/git.txt build",
  "cp trees/dot/git.txt build/.envrc.example",
  "cp trees/dot/.envrc build/envrc.txt",
  "mv build/a.txt build/b.txt",
  "ln -s ../trees/dot/git.txt build",
  "cp not-made-yet.txt build",
  "patch -p1 -d build -i body.patch",
];

describe.each<PermissionMode>(["bypassPermissions", "acceptEdits"])("tree writes into build/ in %s mode", (mode) => {
  it.each(ATTACKS)("%s asks (%s)", (command, why) => {
    const d = decide(command, mode);
    expect(d.behavior, d.reason).toBe("ask");
    expect(d.source).toBe("safety");
    expect(d.reason).toMatch(why);
  });
});

describe("benign trees into build/ stay allowed", () => {
  it.each(BENIGN)("%s in bypassPermissions mode", (command) => {
    const d = decide(command, "bypassPermissions");
    expect(d.behavior, d.reason).toBe("allow");
  });
});

describe("default mode: an allow rule for the command does not cover what the tree holds", () => {
  it.each(ATTACKS.filter(([c]) => /^(tar|unzip|cp|rsync|patch)/.test(c)))("%s asks despite its allow rule", (command) => {
    const name = command.split(" ")[0]!;
    const d = decide(command, "default", [`Bash(${name} *)`]);
    expect(d.behavior, d.reason).toBe("ask");
    expect(d.source).toBe("safety");
  });

  it.each(BENIGN.filter((c) => /^(tar|unzip|cp|rsync)/.test(c)))("%s is allowed by its allow rule", (command) => {
    const name = command.split(" ")[0]!;
    const d = decide(command, "default", [`Bash(${name} *)`]);
    expect(d.behavior, d.reason).toBe("allow");
  });
});
