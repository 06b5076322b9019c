import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import type { ToolResultBlock } from "../../tool/types.js";
import { describe, expect, it } from "vitest";
import { toolUse, withTempDir } from "../../../test/helpers.js";
import { eventually, isAlive, pidsIn, ResponseRecorder, run, shellSession, textOf } from "../../../test/bash-helpers.js";
import type { BashOutput } from "./result.js";

describe("Bash: running a command", () => {
  it("returns stdout and stderr in the order they were written, and the structured output to hooks", async () => {
    await withTempDir(async (dir) => {
      const hooks = new ResponseRecorder();
      const s = shellSession(dir, { session: { hooks } });
      const r = await run(s, "Bash", { command: "echo one; echo two >&2; echo three" });
      expect(r.is_error).toBeUndefined();
      expect(textOf(r)).toBe("one\ntwo\nthree");
      const data = hooks.last<BashOutput>();
      expect(data.stdout).toBe("one\ntwo\nthree\n");
      expect(data.stderr).toBe("");
      expect(data.exitCode).toBe(0);
      expect(data.interrupted).toBe(false);
      expect(readFileSync(data.outputPath!, "utf8")).toBe("one\ntwo\nthree\n");
      await s.close();
    });
  });

  it("no output says so", async () => {
    await withTempDir(async (dir) => {
      const s = shellSession(dir);
      expect(textOf(await run(s, "Bash", { command: "true" }))).toBe("(Bash completed with no output)");
      await s.close();
    });
  });

  it("leading blank lines and trailing whitespace are trimmed", async () => {
    await withTempDir(async (dir) => {
      const s = shellSession(dir);
      expect(textOf(await run(s, "Bash", { command: "printf '\\n\\n  x\\n\\n  '" }))).toBe("  x");
      await s.close();
    });
  });

  it.each([
    ["exit 3", 3],
    ["echo out; echo bad >&2; exit 2", 2],
    ["false", 1],
    ["kill -TERM $$", 143],
  ])("non-zero exit %s is an error starting with Exit code", async (command, code) => {
    await withTempDir(async (dir) => {
      const s = shellSession(dir);
      const r = await run(s, "Bash", { command });
      expect(r.is_error).toBe(true);
      expect(textOf(r).startsWith(`Exit code ${code}`)).toBe(true);
      await s.close();
    });
  });

  it.each([
    ["grep nothing-matches f.txt", "No matches found"],
    ["rg nothing-matches f.txt", "No matches found"],
    ["diff f.txt g.txt", "Files differ"],
    ["test -e missing", "Condition is false"],
    ["cat f.txt | grep nothing-matches", "No matches found"],
    ["git diff --no-index --quiet f.txt g.txt", "Differences found"],
  ])("exit 1 of %s is an answer, not an error", async (command, meaning) => {
    await withTempDir(async (dir) => {
      writeFileSync(join(dir, "f.txt"), "a\n");
      writeFileSync(join(dir, "g.txt"), "b\n");
      const hooks = new ResponseRecorder();
      const s = shellSession(dir, { session: { hooks } });
      const r = await run(s, "Bash", { command });
      expect(r.is_error).toBeUndefined();
      expect(hooks.last<BashOutput>().exitCode).toBe(1);
      expect(textOf(r)).toContain(meaning);
      await s.close();
    });
  });

  it("exit 2 of grep (a real error) is still an error", async () => {
    await withTempDir(async (dir) => {
      const s = shellSession(dir);
      const r = await run(s, "Bash", { command: "grep x /no/such/file" });
      expect(r.is_error).toBe(true);
      expect(textOf(r)).toMatch(/^Exit code 2\n/);
      await s.close();
    });
  });

  it("exit 1 of a grep that is not last is an error (the status is the last command's)", async () => {
    await withTempDir(async (dir) => {
      const s = shellSession(dir);
      const r = await run(s, "Bash", { command: "grep -q x /dev/null; exit 1" });
      expect(r.is_error).toBe(true);
      await s.close();
    });
  });

  it("a syntax error is reported with the shell's line number", async () => {
    await withTempDir(async (dir) => {
      const s = shellSession(dir);
      const r = await run(s, "Bash", { command: "echo ok\nif then" });
      expect(r.is_error).toBe(true);
      expect(textOf(r)).toContain("line 2");
      await s.close();
    });
  });

  it("bad input becomes an error the model can act on", async () => {
    await withTempDir(async (dir) => {
      const s = shellSession(dir);
      expect(textOf(await run(s, "Bash", { command: "  " }))).toContain("The command is empty");
      expect(textOf(await run(s, "Bash", { command: "true", timeout: -5 }))).toContain("timeout must be a whole, positive number of milliseconds");
      expect(textOf(await run(s, "Bash", { command: "true", timeout: 1.5 }))).toContain("got 1.5");
      expect(textOf(await run(s, "Bash", { command: "true", shell: "zsh" }))).toContain("unexpected parameter `shell`");
      await s.close();
    });
  });
});

describe("Bash: environment and interactivity", () => {
  it("sets the non-interactive variables and the session env", async () => {
    await withTempDir(async (dir) => {
      const s = shellSession(dir, { session: { env: { MY_SETTING: "from-settings" } } });
      const r = await run(s, "Bash", { command: 'echo "$PAGER $GIT_PAGER $GIT_EDITOR $ARMATURE $GIT_TERMINAL_PROMPT $MY_SETTING"' });
      expect(textOf(r)).toBe("cat cat true 1 0 from-settings");
      await s.close();
    });
  });

  it("stdin is empty and there is no terminal: prompts fail at once", async () => {
    await withTempDir(async (dir) => {
      const s = shellSession(dir);
      const r = await run(s, "Bash", {
        command: 'read -r answer; echo "read=$?"; cat; tty; exec 9</dev/tty && echo has-tty || echo no-tty',
        timeout: 20_000,
      });
      const text = textOf(r);
      expect(text).toContain("read=1");
      expect(text).toContain("not a tty");
      expect(text).toContain("no-tty");
      await s.close();
    });
  });

  it("git never opens an editor or a pager, and a prompt for input ends at once", async () => {
    await withTempDir(async (dir) => {
      const s = shellSession(dir);
      const r = await run(s, "Bash", {
        command:
          "git init -q . && git -c user.email=a@b -c user.name=n commit -q --allow-empty -m first && " +
          "git -c user.email=a@b -c user.name=n commit --allow-empty; echo commit=$?; git log --oneline | cat; " +
          "python3 -c 'input()' 2>&1 | tail -1",
        timeout: 30_000,
      });
      const text = textOf(r);
      expect(text).toContain("empty commit message");
      expect(text).toContain("commit=1");
      expect(text).toContain("first");
      expect(text).toContain("EOFError");
      await s.close();
    });
  });

  it("runs in its own process group and session", async () => {
    await withTempDir(async (dir) => {
      const s = shellSession(dir);
      const r = await run(s, "Bash", { command: "ps -o pid=,pgid=,sid= -p $$" });
      const [pid, pgid, sid] = textOf(r).trim().split(/\s+/).map(Number);
      expect(pgid).toBe(pid);
      expect(sid).toBe(pid);
      expect(pgid).not.toBe(process.pid);
      await s.close();
    });
  });

  it("the shell is configurable; a bare name is found in the system's folders only", async () => {
    await withTempDir(async (dir) => {
      const s = shellSession(dir, { bash: { shell: "sh" } });
      expect(textOf(await run(s, "Bash", { command: 'echo "$0"' }))).toMatch(/^\/(usr\/)?(local\/)?s?bin\/sh$/);
      await s.close();
      const missing = shellSession(dir, { bash: { shell: "/no/such/shell" } });
      const r = await run(missing, "Bash", { command: "true" });
      expect(r.is_error).toBe(true);
      expect(textOf(r)).toContain("Could not start the shell");
      await missing.close();
    });
  });
});

describe("Bash: working directory", () => {
  it("carries cd over between calls inside the project", async () => {
    await withTempDir(async (dir) => {
      mkdirSync(join(dir, "a", "b"), { recursive: true });
      const s = shellSession(dir);
      await run(s, "Bash", { command: "cd a/b" });
      expect(s.context.workspace.cwd).toBe(join(dir, "a", "b"));
      expect(textOf(await run(s, "Bash", { command: "pwd" }))).toBe(join(dir, "a", "b"));
      await run(s, "Bash", { command: "cd .. && exit 4" });
      expect(textOf(await run(s, "Bash", { command: "pwd" }))).toBe(join(dir, "a"));
      await s.close();
    });
  });

  it("leaving the working directories resets to the project with a notice", async () => {
    await withTempDir(async (dir) => {
      const s = shellSession(dir);
      const r = await run(s, "Bash", { command: "cd /usr" });
      expect(textOf(r)).toContain(`Shell cwd was reset to ${dir}`);
      expect(s.context.workspace.cwd).toBe(dir);
      expect(textOf(await run(s, "Bash", { command: "pwd" }))).toBe(dir);
      await s.close();
    });
  });

  it("a sibling directory with the project's name as prefix is outside", async () => {
    await withTempDir(async (root) => {
      const proj = join(root, "proj");
      mkdirSync(proj);
      mkdirSync(join(root, "proj-evil"));
      const s = shellSession(proj);
      expect(textOf(await run(s, "Bash", { command: "cd ../proj-evil" }))).toContain("Shell cwd was reset");
      await s.close();
    });
  });

  it("a symlink inside the project that points outside is outside", async () => {
    await withTempDir(async (root) => {
      const proj = join(root, "proj");
      mkdirSync(proj);
      symlinkSync("/usr", join(proj, "link"));
      const s = shellSession(proj);
      expect(textOf(await run(s, "Bash", { command: "cd link" }))).toContain("Shell cwd was reset");
      expect(s.context.workspace.cwd).toBe(proj);
      await s.close();
    });
  });

  it("an additional working directory may be entered", async () => {
    await withTempDir(async (root) => {
      mkdirSync(join(root, "proj"));
      mkdirSync(join(root, "extra"));
      const s = shellSession(join(root, "proj"), { session: { additionalDirectories: [join(root, "extra")] } });
      await run(s, "Bash", { command: "cd ../extra" });
      expect(s.context.workspace.cwd).toBe(join(root, "extra"));
      await s.close();
    });
  });

  it("a cwd that was deleted falls back to the project", async () => {
    await withTempDir(async (dir) => {
      mkdirSync(join(dir, "gone"));
      const s = shellSession(dir);
      await run(s, "Bash", { command: "cd gone" });
      await run(s, "Bash", { command: "rmdir ../gone" });
      const r = await run(s, "Bash", { command: "pwd" });
      expect(textOf(r)).toContain(dir);
      expect(textOf(r)).toContain("Shell cwd was reset");
      await s.close();
    });
  });

  it("a cd the command hides by replacing the EXIT trap keeps the previous cwd", async () => {
    await withTempDir(async (dir) => {
      mkdirSync(join(dir, "sub"));
      const s = shellSession(dir);
      await run(s, "Bash", { command: "trap - EXIT; cd sub" });
      expect(s.context.workspace.cwd).toBe(dir);
      await s.close();
    });
  });

  it("a command that writes to its own fd does not disturb cwd tracking (no fd is borrowed)", async () => {
    await withTempDir(async (dir) => {
      const s = shellSession(dir);
      const r = await run(s, "Bash", { command: "exec 3>x.txt; echo mine >&3; exec 9>y.txt; echo mine >&9; cat x.txt y.txt" });
      expect(textOf(r)).toBe("mine\nmine");
      expect(s.context.workspace.cwd).toBe(dir);
      await s.close();
    });
  });
});

describe("Bash: timeout and abort stop everything", () => {
  const spawnTree = (pids: string): string =>
    [
      // a grandchild in the group
      `(sleep 1000 & echo $! >> ${pids}; wait) &`,
      // a child that ignores SIGTERM (and keeps forking)
      `bash -c 'trap "" TERM; echo $$ >> ${pids}; while :; do sleep 0.05; done' &`,
      // a descendant that left the group with setsid
      `setsid sleep 1000 & echo $! >> ${pids};`,
      // wait until all three have written their pid, then block
      `while [ "$(wc -l < ${pids})" -lt 3 ]; do sleep 0.02; done; echo started; sleep 1000`,
    ].join("\n");

  it("timeout that stops (background tasks off): SIGTERM to the group, SIGKILL after the grace; no process survives", async () => {
    await withTempDir(async (dir) => {
      const pids = join(dir, "pids");
      const hooks = new ResponseRecorder();
      // With background tasks on, a timeout moves such a command to the background (tasks.test.ts).
      const s = shellSession(dir, { session: { hooks, env: { ARMATURE_DISABLE_BACKGROUND_TASKS: "1" } } });
      const r = await run(s, "Bash", { command: spawnTree(pids), timeout: 3_000 });
      expect(r.is_error).toBe(true);
      expect(textOf(r)).toMatch(/^Exit code \d+\n/);
      expect(textOf(r)).toMatch(/\nCommand timed out after 3s$/);
      expect(textOf(r)).toContain("started");
      expect(hooks.last<BashOutput>().timedOut).toBe(true);
      const all = pidsIn(pids);
      expect(all.length).toBe(3);
      for (const pid of all) expect(isAlive(pid)).toBe(false);
      await s.close();
    });
  });

  it("abort: the call says it was aborted and nothing survives", async () => {
    await withTempDir(async (dir) => {
      const pids = join(dir, "pids");
      const s = shellSession(dir);
      const controller = new AbortController();
      // Abort once the tree is complete (it says "started").
      const onProgress = (p: { data: unknown }): void => {
        if ((p.data as { chunk: string }).chunk.includes("started")) controller.abort();
      };
      const [r] = await s.runTurn([toolUse("Bash", { command: spawnTree(pids) })], { signal: controller.signal, onProgress });
      expect(r!.is_error).toBe(true);
      expect(textOf(r!)).toContain("<error>Command was aborted before completion</error>");
      expect(pidsIn(pids).length).toBe(3);
      for (const pid of pidsIn(pids)) expect(isAlive(pid)).toBe(false);
      await s.close();
    });
  });

  it("processes left running in the background are stopped when the command finishes", async () => {
    await withTempDir(async (dir) => {
      const s = shellSession(dir);
      const r = await run(s, "Bash", { command: "sleep 1000 & echo $! > pid; echo done" });
      expect(textOf(r)).toContain("done");
      expect(textOf(r)).toContain("use run_in_background".replace("use", "Use"));
      expect(isAlive(pidsIn(join(dir, "pid"))[0]!)).toBe(false);
      await s.close();
    });
  });

  it("the timeout is clamped to the maximum, not rejected", async () => {
    await withTempDir(async (dir) => {
      const hooks = new ResponseRecorder();
      const s = shellSession(dir, { session: { hooks, env: { BASH_MAX_TIMEOUT_MS: "700000" } } });
      const r = await run(s, "Bash", { command: "true", timeout: 10_000_000 });
      expect(hooks.last<BashOutput>().timeoutMs).toBe(700_000);
      expect(textOf(r)).toContain("The timeout of 10000000 ms is above the maximum; 700000 ms was used.");
      await s.close();
    });
  });
});

describe("Bash: output", () => {
  it("progress events carry the chunks as they come", async () => {
    await withTempDir(async (dir) => {
      const s = shellSession(dir);
      const chunks: string[] = [];
      // "b" is written only after "a" was seen as progress (the test creates the file `go`).
      const command = "echo a; while [ ! -e go ]; do sleep 0.02; done; echo b >&2";
      await s.runTurn([toolUse("Bash", { command }, "t1")], {
        onProgress: (p) => {
          if (chunks.length === 0) writeFileSync(join(dir, "go"), "");
          const data = p.data as { type: string; chunk: string; totalBytes: number };
          expect(p.toolUseId).toBe("t1");
          expect(data.type).toBe("bash_progress");
          expect(data.totalBytes).toBe(chunks.join("").length + data.chunk.length);
          chunks.push(data.chunk);
        },
      });
      expect(chunks).toEqual(["a\n", "b\n"]);
      await s.close();
    });
  });

  it("huge output: the reference's <persisted-output> block with a 2 KB preview, the full output on disk", async () => {
    await withTempDir(async (dir) => {
      const hooks = new ResponseRecorder();
      const s = shellSession(dir, { session: { hooks } });
      // 40 MB: lines "line N"
      const r = await run(s, "Bash", { command: "seq 1 5000000 | sed 's/^/line /'; echo END" });
      const text = textOf(r);
      const data = hooks.last<BashOutput>();
      expect(data.truncated).toBe(true);
      const size = `${(data.outputBytes! / 1024 ** 2).toFixed(1).replace(/\.0$/, "")}MB`;
      expect(text.startsWith(`<persisted-output>\nOutput too large (${size}). Full output saved to: ${data.outputPath!}\n\nPreview (first 2KB):\nline 1\nline 2\n`)).toBe(true);
      expect(text.endsWith("\n...\n</persisted-output>")).toBe(true);
      expect(text.length).toBeLessThan(2_300);
      expect(statSync(data.outputPath!).size).toBe(data.outputBytes);
      expect(data.outputBytes).toBeGreaterThan(40_000_000);
      await s.close();
    });
  });

  it("output of exactly the inline limit stays inline; one character more is persisted (as the reference)", async () => {
    await withTempDir(async (dir) => {
      const s = shellSession(dir);
      expect(textOf(await run(s, "Bash", { command: "head -c 30000 /dev/zero | tr '\\0' y" }))).toBe("y".repeat(30_000));
      const over = textOf(await run(s, "Bash", { command: "head -c 30011 /dev/zero | tr '\\0' y" }));
      expect(over).toMatch(/^<persisted-output>\nOutput too large \(29\.3KB\)\. Full output saved to: \S+\n\nPreview \(first 2KB\):\ny{2000}\n\.\.\.\n<\/persisted-output>$/);
      await s.close();
    });
  });

  it("BASH_MAX_OUTPUT_LENGTH sizes the inline text", async () => {
    await withTempDir(async (dir) => {
      const s = shellSession(dir, { session: { env: { BASH_MAX_OUTPUT_LENGTH: "5000" } } });
      const text = textOf(await run(s, "Bash", { command: "seq 1 100000" }));
      expect(text.length).toBeLessThanOrEqual(5_000 + 600);
      await s.close();
    });
  });

  it("non-UTF-8 output is decoded safely", async () => {
    await withTempDir(async (dir) => {
      const s = shellSession(dir);
      const r = await run(s, "Bash", { command: "printf 'caf\\xe9 \\xff\\xfe ok \\xe2\\x82\\xac\\n'" });
      expect(textOf(r)).toBe("caf\uFFFD \uFFFD\uFFFD ok €");
      await s.close();
    });
  });

  it("a multi-byte character cut by the preview is not split", async () => {
    await withTempDir(async (dir) => {
      const s = shellSession(dir, { session: { env: { BASH_MAX_OUTPUT_LENGTH: "2000" } } });
      const text = textOf(await run(s, "Bash", { command: "for i in $(seq 1 3000); do printf 'é€😀'; done" }));
      const preview = /Preview \(first 2KB\):\n([\s\S]*)\n\.\.\.\n<\/persisted-output>$/.exec(text)![1]!;
      expect(preview).toMatch(/^(é€😀)+(é|é€)?$/u);
      expect(Buffer.byteLength(preview)).toBeLessThanOrEqual(2000);
      await s.close();
    });
  });

  it("an image on stdout comes back as an image block", async () => {
    await withTempDir(async (dir) => {
      const { default: sharp } = await import("sharp");
      const png = await sharp({ create: { width: 4, height: 3, channels: 3, background: "#ff0000" } }).png().toBuffer();
      writeFileSync(join(dir, "red.png"), png);
      const s = shellSession(dir);
      const r = await run(s, "Bash", { command: "cat red.png" });
      expect(Array.isArray(r.content)).toBe(true);
      const blocks = r.content as Array<{ type: string; source?: { media_type: string; data: string } }>;
      expect(blocks[0]!.type).toBe("image");
      expect(blocks[0]!.source!.media_type).toBe("image/png");
      expect(Buffer.from(blocks[0]!.source!.data, "base64").equals(png)).toBe(true);
      // JPEG, GIF and WebP by their magic bytes; a data: URI too
      const jpeg = await sharp(png).jpeg().toBuffer();
      writeFileSync(join(dir, "x.jpg"), jpeg);
      const gif = await sharp(png).gif().toBuffer();
      writeFileSync(join(dir, "x.gif"), gif);
      const webp = await sharp(png).webp().toBuffer();
      writeFileSync(join(dir, "x.webp"), webp);
      for (const [file, type] of [["x.jpg", "image/jpeg"], ["x.gif", "image/gif"], ["x.webp", "image/webp"]] as const) {
        const res = await run(s, "Bash", { command: `cat ${file}` });
        expect((res.content as Array<{ source?: { media_type: string } }>)[0]!.source!.media_type).toBe(type);
      }
      const uri = await run(s, "Bash", { command: `printf 'data:image/png;base64,%s' "$(base64 -w0 red.png)"` });
      expect((uri.content as Array<{ type: string }>)[0]!.type).toBe("image");
      await s.close();
    });
  });

  it("text that merely mentions PNG is text", async () => {
    await withTempDir(async (dir) => {
      const s = shellSession(dir);
      const r = await run(s, "Bash", { command: "echo 'PNG data:image/png;base64,not really'" });
      expect(typeof r.content).toBe("string");
      await s.close();
    });
  });
});

describe("Bash: concurrency", () => {
  it("a failing shell call aborts its running siblings in the streaming executor", async () => {
    await withTempDir(async (dir) => {
      execFileSync("mkfifo", [join(dir, "fifo")]);
      const s = shellSession(dir);
      // Two read-only calls run side by side: one blocks on a FIFO nobody writes, the other fails.
      async function* blocks() {
        yield toolUse("Bash", { command: "cat fifo" }, "slow");
        await new Promise((r) => setTimeout(r, 300));
        yield toolUse("Bash", { command: "cat /no/such/file" }, "fail");
      }
      const results: Record<string, ToolResultBlock> = {};
      for await (const event of s.stream(blocks())) if (event.type === "result") results[event.result.tool_use_id] = event.result;
      expect(results.fail!.is_error).toBe(true);
      expect(results.slow!.is_error).toBe(true);
      expect(textOf(results.slow!)).toContain("Command was aborted before completion");
      await s.close();
    });
  });
});

describe("Bash: the output file", () => {
  it("past the output limit the command is stopped and says so", async () => {
    await withTempDir(async (dir) => {
      const hooks = new ResponseRecorder();
      const s = shellSession(dir, { bash: { maxOutputBytes: 100_000 }, session: { hooks } });
      const r = await run(s, "Bash", { command: "while :; do echo a line of output; done" });
      expect(r.is_error).toBe(true);
      expect(textOf(r)).toContain("of output (the limit)");
      expect(hooks.last<BashOutput>().outputBytes).toBeGreaterThan(100_000);
      await s.close();
      // The same cap from the session's environment (settings `env`).
      const fromEnv = shellSession(dir, { session: { hooks, env: { ARMATURE_BASH_MAX_OUTPUT_FILE_BYTES: "100000" } } });
      const capped = await run(fromEnv, "Bash", { command: "while :; do echo a line of output; done" });
      expect(textOf(capped)).toContain("of output (the limit)");
      expect(hooks.last<BashOutput>().outputBytes).toBeLessThan(50_000_000);
      await fromEnv.close();
    });
  });

  it("output over the keep limit: its file keeps the head and the tail, and the result says what and why", async () => {
    await withTempDir(async (dir) => {
      const hooks = new ResponseRecorder();
      const s = shellSession(dir, { bash: { keepOutputBytes: 1_000_000 }, session: { hooks } });
      // 6,888,896 bytes: every number on its own line.
      const r = await run(s, "Bash", { command: "seq 1 1000000" });
      const out = hooks.last<BashOutput>();
      expect(out.outputBytes).toBe(6_888_896);
      const kept = readFileSync(out.outputPath!, "utf8");
      const note = `\n[armature: 5888896 bytes of output were left out here; this file keeps the first 500000 and the last 500000 of the 6888896 bytes the command wrote]\n`;
      const all = Array.from({ length: 1_000_000 }, (_, i) => `${i + 1}\n`).join("");
      expect(kept).toBe(all.slice(0, 500_000) + note + all.slice(-500_000));
      expect(textOf(r)).toContain(`The command wrote 6.6 MB; ${out.outputPath} keeps its first 488.3 KB and last 488.3 KB (the limit per call, ARMATURE_BASH_KEEP_OUTPUT_BYTES).`);
      // Within the limit: the file is the output, whole.
      await run(s, "Bash", { command: "seq 1 1000" });
      expect(readFileSync(hooks.last<BashOutput>().outputPath!, "utf8")).toBe(all.slice(0, all.indexOf("\n1001\n") + 1));
      await s.close();
    });
  });

  it("the session's outputs in all stay under ARMATURE_BASH_OUTPUT_TOTAL_BYTES: the oldest finished ones go first, and the result says which", async () => {
    await withTempDir(async (dir) => {
      const hooks = new ResponseRecorder();
      // Room for 300,000 bytes; a call may keep 100,000; each writes 78,894.
      const s = shellSession(dir, { session: { hooks, env: { ARMATURE_BASH_OUTPUT_TOTAL_BYTES: "300000", ARMATURE_BASH_KEEP_OUTPUT_BYTES: "100000" } } });
      const paths: string[] = [];
      const texts: string[] = [];
      for (let i = 0; i < 4; i++) {
        texts.push(textOf(await run(s, "Bash", { command: "seq 1 15000" })));
        paths.push(hooks.last<BashOutput>().outputPath!);
      }
      // Before the fourth call the folder held 236,682 bytes, over 300,000 less the 100,000 a call may keep.
      expect(texts.slice(0, 3).some((t) => t.includes("were removed"))).toBe(false);
      expect(texts[3]).toContain(`To keep this session's command outputs under 293.0 KB in all (ARMATURE_BASH_OUTPUT_TOTAL_BYTES), the oldest were removed: ${paths[0]}.`);
      expect(paths.map((p) => existsSync(p))).toEqual([false, true, true, true]);
      await s.close();
    });
  });

  it("no output, no output path; the files are private and go with the session", async () => {
    await withTempDir(async (dir) => {
      const hooks = new ResponseRecorder();
      const s = shellSession(dir, { session: { hooks } });
      await run(s, "Bash", { command: "true" });
      expect(hooks.last<BashOutput>().outputPath).toBeUndefined();
      await run(s, "Bash", { command: "echo x" });
      const path = hooks.last<BashOutput>().outputPath!;
      expect(path.startsWith(s.context.session.dir)).toBe(true);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      await s.close();
      expect(await eventually(() => !existsSync(path))).toBe(true);
    });
  });
});
