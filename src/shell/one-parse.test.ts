// One Bash call through the pipeline parses its command once: the Bash tool's analysis is the
// one every consumer (hooks, the permission engine, the sandbox plan, the run) reads.
import { describe, expect, it, vi } from "vitest";
import { Parser } from "web-tree-sitter";
import * as lib from "../index.js";
import { shellCallThroughSession } from "../../test/permission-helpers.js";
import { withTempDir } from "../../test/helpers.js";

describe("one analysis per call", () => {
  it("tree-sitter parses the command once for the whole call", async () => {
    await withTempDir(async (dir) => {
      const parse = vi.spyOn(Parser.prototype, "parse");
      try {
        const result = await shellCallThroughSession(lib, dir);
        expect(result.is_error).not.toBe(true);
        expect(JSON.stringify(result)).toContain("src/a.ts:1:foo");
        expect(parse).toHaveBeenCalledTimes(1);
      } finally {
        parse.mockRestore();
      }
    });
  });
});
