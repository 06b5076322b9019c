import { open } from "node:fs/promises";
import { constants } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { call, fileSession, text } from "../../test/file-tools/harness.js";
import { withTempDir } from "../../test/helpers.js";
import { createWriteTool } from "../tools/write/write-tool.js";
import { classifyError, formatClassifiedError } from "../pipeline/errors.js";
import { describeErrno, errnoCode, nameSystemError } from "./errno.js";
import { WriteFailedError } from "./write-failure.js";

/** The error libuv hands over for an errno it has no name for (EDQUOT is one). */
function unnamed(errno: number, syscall: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`Unknown system error -${errno}: Unknown system error -${errno}, ${syscall}`), { errno: -errno, code: `Unknown system error -${errno}`, syscall });
}

/** The error libuv hands over for one it knows. */
function named(code: string, syscall: string): NodeJS.ErrnoException {
  const errno = constants.errno[code as keyof typeof constants.errno];
  return Object.assign(new Error(`${code}: failed, ${syscall}`), { errno: -errno, code, syscall });
}

const MET = ["EDQUOT", "EROFS", "EFBIG", "ENAMETOOLONG", "EMFILE", "ENFILE", "EIO", "ENOSPC", "EAGAIN"] as const;

describe("every errno armature can meet is named in words", () => {
  it.each(MET)("%s: named from its number as well as its code, with a phrase", (code) => {
    const errno = constants.errno[code];
    expect(errnoCode(unnamed(errno, "write"))).toBe(code);
    expect(errnoCode(named(code, "write"))).toBe(code);
    expect(describeErrno(code)).toMatch(new RegExp(`^[a-z].+ \\(${code}\\)$`));
    for (const err of [unnamed(errno, "write"), named(code, "write")]) {
      const failed = new WriteFailedError("/w/f.txt", err);
      expect(failed.code).toBe(code);
      expect(failed.message).toContain(`/w/f.txt was not changed: ${describeErrno(code)}.`);
      expect(failed.message).not.toMatch(/Unknown system error/);
    }
  });

  it("a tool error the pipeline words: the code in the label, the phrase in place of 'Unknown system error -122'", () => {
    const shown = formatClassifiedError(classifyError(unnamed(122, "open")));
    expect(shown).toBe("Error [EDQUOT]: the disk quota is exceeded (EDQUOT): the disk quota is exceeded (EDQUOT), open");
    expect(nameSystemError(new Error("plain"))).toMatchObject({ message: "plain" });
    expect(errnoCode(new Error("plain"))).toBeUndefined();
    expect(errnoCode(Object.assign(new Error("x"), { code: "ERR_INVALID_ARG_TYPE" }))).toBeUndefined();
  });

  it("a name too long for the file system, for real: ENAMETOOLONG in words", async () => {
    await withTempDir(async (dir) => {
      const long = join(dir, `${"n".repeat(300)}.txt`);
      await expect(open(long, "w")).rejects.toMatchObject({ code: "ENAMETOOLONG" });
      const session = fileSession(dir, [createWriteTool()], { permissionMode: "acceptEdits" });
      try {
        const block = await call(session, "Write", { file_path: long, content: "x" });
        expect(block.is_error).toBe(true);
        expect(text(block)).toMatch(/ENAMETOOLONG\b.*name (is )?too long|name (is )?too long.*ENAMETOOLONG/);
      } finally {
        await session.close();
      }
    });
  });
});
