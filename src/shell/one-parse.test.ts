// One Bash call through the pipeline parses its command once: the Bash tool's analysis is the
// one every consumer (hooks, the permission engine, the sandbox plan, the run) reads. The
// command is one the fast parser knows, so tree-sitter is not run at all.
import { describe, expect, it, vi } from "vitest";
import { Parser } from "web-tree-sitter";
import * as lib from "../index.js";
import { shellCallThroughSession } from "../../test/permission-helpers.js";
import { withTempDir } from "../../test/helpers.js";
import { bashParseCounts } from "./parser.js";

describe("one analysis per call", () => {
  it("the command is parsed once for the whole call (by the fast parser; tree-sitter not at all)", async () => {
    await withTempDir(async (dir) => {
      const parse = vi.spyOn(Parser.prototype, "parse");
      const before = bashParseCounts();
      try {
        const result = await shellCallThroughSession(lib, dir);
        expect(result.is_error).not.toBe(true);
        expect(JSON.stringify(result)).toContain("src/a.ts:1:foo");
        const after = bashParseCounts();
        expect({ fast: after.fast - before.fast, treeSitter: after.treeSitter - before.treeSitter }).toEqual({ fast: 1, treeSitter: 0 });
        expect(parse).not.toHaveBeenCalled();
      } finally {
        parse.mockRestore();
      }
    });
  });
});
