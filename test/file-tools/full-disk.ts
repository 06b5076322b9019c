// The full-disk suite (issue 27): writes through the file tools on a small tmpfs filled to a
// random level. Every write must end with the old content or the new, never a cut file, and a
// refused write must say why (ENOSPC). Mounting needs root (or CAP_SYS_ADMIN); where it is
// impossible the suite says so and is skipped.
import { execFileSync } from "node:child_process";
import { linkSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEditTool } from "../../src/tools/edit/edit-tool.js";
import { createWriteTool } from "../../src/tools/write/write-tool.js";
import { rng } from "../fuzz/mutate.js";
import { call, fileSession } from "./harness.js";

export interface SmallDisk {
  dir: string;
  bytes: number;
  unmount(): void;
}

/** A fresh tmpfs of `bytes` bytes, or the reason there cannot be one here. */
export function mountSmallDisk(bytes: number): SmallDisk | string {
  if (process.platform !== "linux") return "tmpfs mounts need Linux";
  const dir = mkdtempSync(join(tmpdir(), "armature-full-disk-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${bytes},mode=0755`, "tmpfs", dir], { stdio: "pipe" });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    const why = (err as { stderr?: Buffer }).stderr?.toString().trim() || (err as Error).message;
    return `cannot mount a tmpfs (needs root or CAP_SYS_ADMIN): ${why}`;
  }
  return {
    dir,
    bytes,
    unmount() {
      try {
        execFileSync("umount", [dir], { stdio: "pipe" });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

export interface FullDiskReport {
  writes: number;
  succeeded: number;
  refused: number;
  /** Files that ended with neither the old nor the new content. */
  truncated: string[];
  /** Refusals whose text does not name the cause. */
  unexplained: string[];
  /** Temp files left beside the targets. */
  leftovers: string[];
}

function bytesOf(size: number, seed: number): string {
  const unit = `line ${seed} `.padEnd(63, "x") + "\n";
  return unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
}

/**
 * `writes` Write/Edit calls on `disk`, each after filling it to a random level; one in four
 * targets has a second hard link (the in-place path). Seeded: a seed replays the run.
 */
// The read-before-edit rule is the freshness check's business (tested with it); here it would
// only add a Read of every target.
const unread = { requireReadBeforeEdit: false };

export async function runFullDisk(disk: SmallDisk, writes: number, seed: number): Promise<FullDiskReport> {
  const random = rng(seed);
  const report: FullDiskReport = { writes, succeeded: 0, refused: 0, truncated: [], unexplained: [], leftovers: [] };
  const session = fileSession(disk.dir, [createWriteTool(unread), createEditTool(unread)], { permissionMode: "acceptEdits", cwd: disk.dir });
  const filler = join(disk.dir, "filler.bin");
  const target = join(disk.dir, "target.txt");
  const link = join(disk.dir, "target-link.txt");
  try {
    for (let i = 0; i < writes; i++) {
      for (const path of [filler, target, link]) rmSync(path, { force: true });
      const mark = `MARK-${i}`;
      const oldText = `${mark}\n${bytesOf(Math.floor(random() * disk.bytes * 0.4), i)}`;
      writeFileSync(target, oldText);
      if (random() < 0.25) linkSync(target, link);
      // Fill what is left to a random level (a filler that does not fit is cut short, fine).
      const room = disk.bytes - oldText.length;
      try {
        writeFileSync(filler, Buffer.alloc(Math.max(0, Math.floor(room * (0.5 + random() * 0.5)))));
      } catch {
        // the filler itself filled the disk: that is a fill level too
      }
      let expected: string;
      let block;
      if (random() < 0.3) {
        const insert = bytesOf(Math.floor(random() * disk.bytes * 0.3), i + 1);
        expected = oldText.replace(mark, insert);
        block = await call(session, "Edit", { file_path: target, old_string: mark, new_string: insert });
      } else {
        expected = bytesOf(Math.floor(random() * disk.bytes * 0.6), i + 1);
        block = await call(session, "Write", { file_path: target, content: expected });
      }
      const now = readFileSync(target, "utf8");
      const content = typeof block.content === "string" ? block.content : JSON.stringify(block.content);
      if (block.is_error) {
        report.refused++;
        if (!/ENOSPC/.test(content)) report.unexplained.push(`#${i}: ${content.slice(0, 300)}`);
        if (now !== oldText) report.truncated.push(`#${i}: refused, the file has ${now.length} bytes, the old content ${oldText.length}`);
      } else {
        report.succeeded++;
        if (now !== expected) report.truncated.push(`#${i}: success, the file has ${now.length} bytes, the new content ${expected.length}`);
      }
      const left = readdirSync(disk.dir).filter((n) => n.endsWith(".armature-tmp") || n.endsWith(".armature-copy"));
      if (left.length > 0) {
        report.leftovers.push(`#${i}: ${left.join(", ")}`);
        for (const n of left) unlinkSync(join(disk.dir, n));
      }
    }
  } finally {
    await session.close();
  }
  return report;
}
