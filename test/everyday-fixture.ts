// A realistic small project for the everyday-commands corpus: a git repository with sources,
// tests, docs, data files, archives, a .env file that is gitignored, and a node_modules folder.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { gzipSync } from "node:zlib";

const FILES: Record<string, string> = {
  "package.json": JSON.stringify({ name: "demo", version: "1.2.3", scripts: { test: "vitest run", build: "tsc" }, dependencies: { react: "18.0.0" } }, null, 2),
  "tsconfig.json": '{ "compilerOptions": { "strict": true } }\n',
  "README.md": "# demo\n\nA small project.\n",
  "CHANGELOG.md": "## 1.2.3\n- fix\n",
  Makefile: "build:\n\ttsc\n",
  ".gitignore": "node_modules\n.env\nlogs\ndist.zip\n",
  ".env": "API_KEY=secret\n",
  "src/index.ts": "// TODO: more\nexport function greet(n: string) { return `hi ${n}`; }\n",
  "src/utils/math.ts": "export const sum = (a: number, b: number) => a + b;\n",
  "tests/math.test.ts": "import { sum } from '../src/utils/math';\ndescribe('sum', () => {});\n",
  "docs/guide.md": "# Guide\nUse it.\n",
  ".github/workflows/ci.yml": "on: push\n",
  "logs/app.log": "200 GET /\n500 GET /x\n",
  "data/users.csv": "id,name\n1,ann\n2,bob\n",
  "data/numbers.txt": "3\n1\n2\n2\n",
  "data/items.json": '[{"id":1,"active":true},{"id":2,"active":false}]\n',
  "data/a.txt": "a 1\nb 2\n",
  "data/b.txt": "a x\nb y\n",
  "node_modules/typescript/package.json": '{"name":"typescript","version":"5.9.3"}\n',
  "node_modules/.bin/tsc": "#!/bin/sh\n",
};

export function everydayProject(dir: string): void {
  for (const [file, text] of Object.entries(FILES)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  writeFileSync(join(dir, "logs/old.log.gz"), gzipSync("old\n"));
  const run = (cmd: string, args: string[]): void => {
    execFileSync(cmd, args, { cwd: dir, stdio: "ignore", env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", HOME: dir } });
  };
  run("tar", ["-cf", "release.tar", "docs"]);
  run("tar", ["-czf", "release.tar.gz", "docs"]);
  run("git", ["init", "-q", "-b", "main"]);
  run("git", ["add", "-A"]);
  run("git", ["-c", "user.email=dev@example.com", "-c", "user.name=dev", "commit", "-qm", "init"]);
  writeFileSync(join(dir, "src/index.ts"), `${FILES["src/index.ts"]}export const x = 1;\n`);
  run("git", ["-c", "user.email=dev@example.com", "-c", "user.name=dev", "commit", "-qam", "second"]);
}
