import { describe, expect, it } from "vitest";
import { toCrlf } from "../../fs/encoding.js";
import { applyEdit } from "./apply-edits.js";
import { findActualString, matchQuoteStyle } from "./find-actual-string.js";

describe("findActualString", () => {
  it.each([
    ["exact, once", "abc abd", "abd", { kind: "exact", actual: "abd", count: 1 }],
    ["exact, twice", "ab ab", "ab", { kind: "exact", actual: "ab", count: 2 }],
    ["curly in file", "say \u201Chi\u201D now", 'say "hi"', { kind: "tolerant", actual: "say \u201Chi\u201D", index: 0 }],
    ["curly in old_string", "it's", "it\u2019s", { kind: "tolerant", actual: "it's", index: 0 }],
    // As the reference: the file's trailing spaces must be in old_string, and extra ones are not dropped.
    ["trailing spaces in file", "x = 1;   \ny\n", "x = 1;\ny", { kind: "none" }],
    ["trailing spaces in old_string", "x = 1;\ny\n", "x = 1;  \ny", { kind: "none" }],
    ["ambiguous after normalising", "\u201Ca\u201D and \u201Ca\u201D", '"a"', { kind: "tolerant-ambiguous", count: 2 }],
    ["absent", "hello", "bye", { kind: "none" }],
    ["whitespace-only old_string never matches tolerantly", "a  \n", "   ", { kind: "none" }],
  ])("%s", (_name, content, search, want) => {
    expect(findActualString(content, search)).toEqual(want);
  });

  it("matchQuoteStyle gives the new text the file's curly quotes", () => {
    expect(matchQuoteStyle('say "bye" (it\'s "x")', 'say "hi"', "say \u201Chi\u201D")).toBe("say \u201Cbye\u201D (it's \u201Cx\u201D)");
    expect(matchQuoteStyle("it's 'q'", "it's", "it\u2019s")).toBe("it\u2019s \u2018q\u2019");
    expect(matchQuoteStyle('a "b"', 'a "b"', 'a "b"')).toBe('a "b"');
  });

  it("applyEdit in a CRLF file: CRLF form first, new text in CRLF", () => {
    const content = toCrlf("one\ntwo\nthree\n");
    expect(applyEdit(content, { old_string: "one\ntwo", new_string: "1\n2" }, "\r\n")).toEqual({
      content: toCrlf("1\n2\nthree\n"),
      applied: { match: "exact", count: 1 },
    });
    expect(applyEdit(content, { old_string: "two", new_string: "2\n2b" }, "\r\n")).toEqual({
      content: toCrlf("one\n2\n2b\nthree\n"),
      applied: { match: "exact", count: 1 },
    });
  });
});
