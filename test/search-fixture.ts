import { mkdir, utimes, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";

/**
 * A small project for the search tools, with fixed modification times (the file listed
 * first here is the oldest): a git repository with root and nested .gitignore files, a
 * .ignore file, hidden files, a binary file, a CRLF file, a long line, names with `:` and `-`.
 */
export const SEARCH_FIXTURE: ReadonlyArray<readonly [string, string]> = [
  [".git/config", "needle in git\n"],
  [".svn/entries", "needle in svn\n"],
  ["sub/.jj/repo", "needle in jj\n"],
  [".gitignore", "ignored.txt\nbuild/\n"],
  [".ignore", "local.cache\n"],
  [".hidden.txt", "needle hidden\n"],
  ["a.txt", "alpha\nneedle one\nbeta\ngamma\ndelta\nneedle two\nepsilon\n"],
  ["b.ts", "const x = 1;\nconst needle = 2;\n"],
  ["build/out.txt", "needle built\n"],
  ["ignored.txt", "needle ignored\n"],
  ["local.cache", "needle cached\n"],
  ["sub/.gitignore", "skip.ts\n"],
  ["sub/c.ts", "Needle upper\nneedle lower\n"],
  ["sub/skip.ts", "needle skipped\n"],
  ["sub/deep/d.md", "-dash needle\nfoo\nbar\n"],
  ["sub/deep/odd:name-1.txt", "needle: odd\n"],
  ["bin.dat", "needle\0binary\n"],
  ["crlf.txt", "needle crlf\r\nnext\r\n"],
  ["long.txt", `${"x".repeat(600)} needle\nshort needle\n`],
];

/** Writes the fixture under `root`; file i gets mtime base + i minutes. */
export async function writeSearchFixture(root: string, files: ReadonlyArray<readonly [string, string]> = SEARCH_FIXTURE): Promise<void> {
  const base = Date.UTC(2024, 0, 1) / 1000;
  let i = 0;
  for (const [rel, content] of files) {
    const path = join(root, rel);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, content);
    await utimes(path, base + i * 60, base + i * 60);
    i++;
  }
}
