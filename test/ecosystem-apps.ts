// What test/ecosystem.test.ts writes into each user project: two small apps in the README's
// style that run against a scripted model server (OpenAI Chat Completions, JSON) with a real
// provider — the AI SDK's `@ai-sdk/openai-compatible`, the Agents SDK's own OpenAI client — and
// one approval round each (the write of yes.txt approved, of no.txt declined); and the README's
// adapter blocks. Each app prints one JSON line: what was asked, the final text, the files.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { RecordedRequest, ScriptedResponse } from "./mock-model-server.js";

export interface AppReport {
  asked: Array<{ tool: string; file: string; reason: string }>;
  text: string;
  yes: string | null;
  no: string | null;
}

const REPORT = `
async function readOrNull(file: string): Promise<string | null> {
  return readFile(file, "utf8").catch(() => null);
}
const report = { asked, text, yes: await readOrNull(join(work, "yes.txt")), no: await readOrNull(join(work, "no.txt")) };
console.log(JSON.stringify(report));
`;

/** The AI SDK app; `toolApproval` (AI SDK 7) passes `aiSdkToolApproval(session)`, else the tools' `needsApproval` asks. */
export function aiSdkApp({ toolApproval }: { toolApproval: boolean }): string {
  return `import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, stepCountIs, type ModelMessage } from "ai";
import { builtinTools, createSession } from "@armature-dev/armature";
import { ${toolApproval ? "aiSdkToolApproval, " : ""}aiSdkTools } from "@armature-dev/armature/ai-sdk";

const work = process.env.WORK_DIR!;
const model = createOpenAICompatible({ name: "scripted", baseURL: \`\${process.env.MODEL_URL}/v1\`, apiKey: "test" }).chatModel("scripted-model");
const session = createSession({ cwd: work, tools: builtinTools() });
const messages: ModelMessage[] = [{ role: "user", content: "Write yes.txt and no.txt" }];
const asked: Array<{ tool: string; file: string; reason: string }> = [];
let text = "";
for (let round = 0; round < 3; round++) {
  const step = await generateText({ model, tools: await aiSdkTools(session), ${toolApproval ? "toolApproval: aiSdkToolApproval(session), " : ""}messages, stopWhen: stepCountIs(5) });
  messages.push(...step.response.messages);
  const requests = step.content.filter((part) => part.type === "tool-approval-request");
  if (requests.length === 0) {
    text = step.text;
    break;
  }
  const answers = [];
  for (const r of requests) {
    const file = String((r.toolCall.input as { file_path?: unknown }).file_path);
    asked.push({ tool: r.toolCall.toolName, file, reason: String((r as { reason?: unknown }).reason ?? "") });
    answers.push({ type: "tool-approval-response" as const, approvalId: r.approvalId, approved: file.endsWith("yes.txt") });
  }
  messages.push({ role: "tool", content: answers });
}
await session.close();
${REPORT}`;
}

/** The Agents SDK app: the default OpenAI provider on Chat Completions (OPENAI_BASE_URL), tracing off. */
export function agentsApp(): string {
  return `import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { Agent, Runner, setOpenAIAPI, setTracingDisabled } from "@openai/agents";
import { builtinTools, createSession } from "@armature-dev/armature";
import { agentsTools } from "@armature-dev/armature/openai-agents";

setOpenAIAPI("chat_completions");
setTracingDisabled(true);
const work = process.env.WORK_DIR!;
const session = createSession({ cwd: work, tools: builtinTools() });
const agent = new Agent({ name: "writer", instructions: "Write the files asked for.", model: "scripted-model", tools: await agentsTools(session) });
const runner = new Runner({ tracingDisabled: true });
const asked: Array<{ tool: string; file: string; reason: string }> = [];
let result = await runner.run(agent, "Write yes.txt and no.txt");
for (let round = 0; round < 3 && result.interruptions.length > 0; round++) {
  for (const item of result.interruptions) {
    const file = String((JSON.parse(item.arguments ?? "{}") as { file_path?: unknown }).file_path);
    asked.push({ tool: item.name ?? "", file, reason: "" });
    if (file.endsWith("yes.txt")) result.state.approve(item);
    else result.state.reject(item);
  }
  result = await runner.run(agent, result.state);
}
const text = String(result.finalOutput ?? "");
await session.close();
${REPORT}`;
}

/** The README's ```ts blocks that use an adapter entry, by entry. */
export function readmeAdapterBlocks(root: string): { aiSdk: string; agents: string } {
  const lines = readFileSync(join(root, "README.md"), "utf8").split("\n");
  const blocks: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== "```ts") continue;
    const end = lines.indexOf("```", i + 1);
    blocks.push(lines.slice(i + 1, end).join("\n"));
    i = end;
  }
  const find = (entry: string): string => {
    const block = blocks.find((b) => b.includes(`"@armature-dev/armature/${entry}"`));
    if (!block) throw new Error(`README.md has no \`\`\`ts block importing @armature-dev/armature/${entry}`);
    return block;
  };
  return { aiSdk: find("ai-sdk"), agents: find("openai-agents") };
}

/**
 * The scripted model, for both apps: a request whose conversation has no tool result yet gets
 * two Write calls (yes.txt, no.txt in `work`); one that has tool results gets "done".
 */
export function scriptedWriter(work: string): (request: RecordedRequest) => ScriptedResponse {
  let n = 0;
  return (request) => {
    const messages = (request.body.messages ?? []) as Array<{ role?: string }>;
    const answered = messages.some((m) => m.role === "tool");
    const message = answered
      ? { role: "assistant", content: "done" }
      : {
          role: "assistant",
          content: null,
          tool_calls: ["yes", "no"].map((name) => ({
            id: `call_${name}_${++n}`,
            type: "function",
            function: { name: "Write", arguments: JSON.stringify({ file_path: join(work, `${name}.txt`), content: `${name === "yes" ? "approved" : "declined"}\n` }) },
          })),
        };
    const body = {
      id: `chatcmpl-${++n}`,
      object: "chat.completion",
      created: 1_765_000_000,
      model: "scripted-model",
      choices: [{ index: 0, message, finish_reason: answered ? "stop" : "tool_calls", logprobs: null }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    };
    return { body: JSON.stringify(body) };
  };
}
