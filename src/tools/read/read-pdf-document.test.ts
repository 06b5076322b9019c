import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makePdf } from "../../../test/file-tools/fixtures.js";
import { toolUse, withTempDir } from "../../../test/helpers.js";
import { anthropicReply, chatReply, startMockModelServer, type MockModelServer } from "../../../test/mock-model-server.js";
import { runAgent } from "../../agent/run-agent.js";
import { AnthropicProvider } from "../../providers/anthropic.js";
import { OpenAIChatProvider } from "../../providers/openai-chat.js";
import { createSession } from "../../session/session.js";
import { builtinTools } from "../index.js";

let server: MockModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Json = Record<string, unknown>;

describe("Read of a PDF as a document block", () => {
  it("Anthropic: the request carries the file whole as a document block, after the reference's text line", async () => {
    await withTempDir(async (dir) => {
      const pdf = makePdf(["Hello PDF"]);
      const file = join(dir, "doc.pdf");
      await writeFile(file, pdf);
      server = await startMockModelServer([
        anthropicReply([{ type: "tool_use", id: "toolu_r", name: "Read", input: { file_path: file } }]),
        anthropicReply([{ type: "text", text: "It says hello." }]),
      ]);
      const session = createSession({ cwd: dir, tools: builtinTools(), sessionDir: join(dir, ".s"), pdfDocuments: true });
      try {
        for await (const event of runAgent({ session, provider: new AnthropicProvider({ baseURL: server.url, apiKey: "k" }), model: "m", prompt: "read it" })) void event;
      } finally {
        await session.close();
      }
      const messages = server.requests[1]!.body.messages as Array<{ content: Json[] }>;
      const result = messages.at(-1)!.content[0]!;
      expect(result).toMatchObject({ type: "tool_result", tool_use_id: "toolu_r" });
      expect((result.content as Json[]).map(({ cache_control: _c, ...b }) => b)).toEqual([
        { type: "text", text: `PDF file read: ${file} (${pdf.length} bytes)` },
        { type: "document", source: { type: "base64", media_type: "application/pdf", data: pdf.toString("base64") } },
      ]);
    });
  });

  it("without the option (other providers) the text is extracted; pages always extracts; over 10 pages needs pages", async () => {
    await withTempDir(async (dir) => {
      const file = join(dir, "doc.pdf");
      await writeFile(file, makePdf(["Hello PDF"]));
      const long = join(dir, "long.pdf");
      await writeFile(long, makePdf(Array.from({ length: 11 }, (_, i) => `page ${i + 1}`)));
      const plain = createSession({ cwd: dir, tools: builtinTools(), sessionDir: join(dir, ".s1") });
      const documents = createSession({ cwd: dir, tools: builtinTools(), sessionDir: join(dir, ".s2"), pdfDocuments: true });
      try {
        const [text] = await plain.runTurn([toolUse("Read", { file_path: file })]);
        expect(text!.content).toContain("Hello PDF");
        const [paged] = await documents.runTurn([toolUse("Read", { file_path: file, pages: "1" })]);
        expect(paged!.content).toContain("Hello PDF");
        const [tooMany] = await documents.runTurn([toolUse("Read", { file_path: long })]);
        expect(tooMany!.is_error).toBe(true);
        expect(tooMany!.content).toContain("This PDF has 11 pages");
      } finally {
        await plain.close();
        await documents.close();
      }
    });
  });

  it("an OpenAI request never carries a document: a placeholder says how to get the text", async () => {
    await withTempDir(async (dir) => {
      const file = join(dir, "doc.pdf");
      await writeFile(file, makePdf(["Hello PDF"]));
      server = await startMockModelServer([
        chatReply({ toolCalls: [{ id: "call_r", name: "Read", arguments: JSON.stringify({ file_path: file }) }] }),
        chatReply({ text: "ok" }),
      ]);
      // A session told the model reads documents, driven by a provider that cannot: the edge converts.
      const session = createSession({ cwd: dir, tools: builtinTools(), sessionDir: join(dir, ".s"), pdfDocuments: true });
      try {
        for await (const event of runAgent({ session, provider: new OpenAIChatProvider({ baseURL: server.url, apiKey: "k" }), model: "m", prompt: "read it" })) void event;
      } finally {
        await session.close();
      }
      const body = JSON.stringify(server.requests[1]!.body);
      expect(body).not.toContain("application/pdf\",\"data");
      expect(body).toContain("PDF document");
      expect(body).toContain('Read the file with pages: \\"1-10\\" for its text');
    });
  });
});
