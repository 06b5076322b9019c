import type { ProviderOptions } from "./model.js";
import { retryObservingFetch } from "./retry-observer.js";
import { activityCountingFetch } from "./stream-deadline.js";

type Json = Record<string, unknown>;

/** The two SDK calls used, typed loosely: bodies are built as plain JSON and chunks read defensively. */
export interface OpenAIClient {
  chat: { completions: { create(body: Json, options: Json): Promise<AsyncIterable<Json>> } };
  responses: { create(body: Json, options: Json): Promise<AsyncIterable<Json>> };
}

/** The `openai` SDK, loaded on first use (start-up time is a feature). */
export async function loadOpenAIClient(options: ProviderOptions): Promise<OpenAIClient> {
  const { default: OpenAI } = await import("openai");
  const client = new OpenAI({
    // Local servers (llama.cpp, Ollama) take any key; the SDK insists on one.
    apiKey: options.apiKey ?? process.env.OPENAI_API_KEY ?? "not-needed",
    baseURL: options.baseURL ?? process.env.OPENAI_BASE_URL ?? undefined,
    maxRetries: options.maxRetries ?? 2,
    fetch: activityCountingFetch(options.onRetry ? retryObservingFetch(options.maxRetries ?? 2, options.onRetry) : undefined),
    ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
    ...(options.headers ? { defaultHeaders: options.headers } : {}),
  });
  return client as unknown as OpenAIClient;
}
