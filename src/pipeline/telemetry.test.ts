import { trace, type Span, type SpanOptions, type Tracer, type TracerProvider } from "@opentelemetry/api";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { buildTool } from "../tool/build-tool.js";
import { createSession } from "../session/session.js";
import { toolUse } from "../../test/helpers.js";

interface Recorded { name: string; attributes: SpanOptions["attributes"]; status?: number; ended: boolean }
const spans: Recorded[] = [];

// A minimal provider standing in for an OpenTelemetry SDK the user would install.
const provider: TracerProvider = {
  getTracer(): Tracer {
    return {
      startSpan(name: string, options?: SpanOptions): Span {
        const rec: Recorded = { name, attributes: options?.attributes, ended: false };
        spans.push(rec);
        const span = {
          setStatus: (s: { code: number }) => ((rec.status = s.code), span),
          end: () => void (rec.ended = true),
        };
        return span as unknown as Span;
      },
      startActiveSpan: (() => { throw new Error("unused"); }) as Tracer["startActiveSpan"],
    };
  },
};

describe("OpenTelemetry", () => {
  trace.setGlobalTracerProvider(provider);
  afterAll(() => trace.disable());

  it("one span per call, ended, with the tool name and an error status on failure", async () => {
    const ok = buildTool({ name: "Ok", description: "", inputSchema: z.object({}), isReadOnly: () => true, call: async () => ({ data: "" }) });
    const s = createSession({ cwd: process.cwd(), tools: [ok] });
    await s.runTurn([toolUse("Ok", {}, "a"), toolUse("Nope", {}, "b")]);
    expect(spans.map((r) => [r.name, r.attributes?.["armature.tool.name"], r.ended, r.status])).toEqual([
      ["armature.tool_call", "Ok", true, undefined],
      ["armature.tool_call", "Nope", true, 2],
    ]);
    await s.close();
  });
});
