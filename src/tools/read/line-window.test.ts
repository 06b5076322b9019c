import { writeFile, open } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { withTempDir } from "../../../test/helpers.js";
import { detectEncoding } from "../../fs/encoding.js";
import { sha256 } from "../../fs/file-state.js";
import { readLineWindow } from "./line-window.js";

function expectedLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  return lines.map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
}

describe("readLineWindow across chunk boundaries", () => {
  const samples = [
    "",
    "\n",
    "a",
    "a\n",
    "a\nb",
    "\n\n\n",
    "héllo wörld\r\nsecond ✓ line\r\n\nlast",
    "x".repeat(50) + "\n" + "y".repeat(3) + "\n",
  ];
  const encodings: Array<["utf8" | "utf16le", (t: string) => Buffer]> = [
    ["utf8", (t) => Buffer.from(t, "utf8")],
    ["utf16le", (t) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(t, "utf16le")])],
  ];
  for (const [encoding, encode] of encodings) {
    it(`${encoding}: every window of every sample, with chunks of 1, 2, 3, 7 and 64 bytes`, async () => {
      await withTempDir(async (dir) => {
        for (const [i, sample] of samples.entries()) {
          const path = join(dir, `s${i}`);
          const bytes = encode(sample);
          await writeFile(path, bytes);
          const format = detectEncoding(bytes);
          const all = expectedLines(sample);
          const handle = await open(path, "r");
          try {
            for (const chunkBytes of [1, 2, 3, 7, 64]) {
              for (let offset = 1; offset <= all.length + 1; offset++) {
                for (const limit of [1, 2, 100]) {
                  const w = await readLineWindow(handle, format, { offset, limit, maxLineChars: 2000, maxOutputChars: 1e9, hash: offset === 1, chunkBytes });
                  const want = all.slice(offset - 1, offset - 1 + limit);
                  expect(w.lines, `${JSON.stringify(sample)} offset ${offset} limit ${limit} chunk ${chunkBytes}`).toEqual(want);
                  // The empty line after a final newline is shown, but a window without it still
                  // covers the whole content.
                  const contentLines = sample.endsWith("\n") ? all.length - 1 : all.length;
                  const reachesEnd = offset - 1 + limit >= contentLines;
                  expect(w.endedBy).toBe(reachesEnd ? "eof" : "limit");
                  if (reachesEnd) expect(w.totalLines).toBe(all.length);
                  if (reachesEnd && offset === 1) expect(w.contentHash).toBe(sha256(bytes));
                }
              }
            }
          } finally {
            await handle.close();
          }
        }
      });
    });
  }

  it("cuts a long line that spans many chunks and counts it once", async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, "wide");
      await writeFile(path, `${"z".repeat(10_000)}\nnext\n`);
      const handle = await open(path, "r");
      const w = await readLineWindow(handle, { encoding: "utf8", bom: false }, { offset: 1, limit: 10, maxLineChars: 5, maxOutputChars: 1e9, hash: false, chunkBytes: 7 });
      await handle.close();
      expect(w.lines).toEqual(["zzzzz… [line truncated]", "next", ""]);
      expect(w.truncatedLines).toBe(1);
    });
  });
});
