import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { LineReader } from "./io.js";

describe("LineReader: turns and approval answers from one terminal", () => {
  it("a line typed while a question waits answers it; the others are turns, in order", async () => {
    const input = new PassThrough();
    const reader = new LineReader(input);
    const lines = reader.lines();
    input.write("turn one\n");
    expect((await lines.next()).value).toBe("turn one");
    let prompt = "";
    const answer = reader.question("Allow? ", { write: (t: string) => (prompt += t) });
    input.write("y\nturn two\n");
    expect(await answer).toBe("y");
    expect(prompt).toBe("Allow? ");
    expect((await lines.next()).value).toBe("turn two");
    input.end("last without newline");
    expect((await lines.next()).value).toBe("last without newline");
    expect((await lines.next()).done).toBe(true);
    expect(await reader.question("Again? ", { write: () => undefined })).toBe("");
  });

  it("an aborted question is abandoned: it resolves empty and the next line is a turn", async () => {
    const input = new PassThrough();
    const reader = new LineReader(input);
    const lines = reader.lines();
    const controller = new AbortController();
    const answer = reader.question("Allow? ", { write: () => undefined }, controller.signal);
    controller.abort();
    expect(await answer).toBe("");
    input.write("next turn\n");
    expect((await lines.next()).value).toBe("next turn");
    expect(await reader.question("Never shown? ", { write: () => expect.unreachable() }, controller.signal)).toBe("");
    input.end();
  });
});
