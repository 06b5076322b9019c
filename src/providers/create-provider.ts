import { AnthropicProvider } from "./anthropic.js";
import type { ModelProvider, ProviderOptions } from "./model.js";
import { OpenAIChatProvider } from "./openai-chat.js";
import { OpenAIResponsesProvider } from "./openai-responses.js";

export const PROVIDER_NAMES = ["anthropic", "openai", "openai-responses"] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

export interface ProviderConfig extends ProviderOptions {
  provider: ProviderName;
  model: string;
}

/** Each provider's model when none is given (every one has a price: cli/agent/prices.ts). */
export const DEFAULT_MODELS: Readonly<Record<ProviderName, string>> = {
  anthropic: "claude-sonnet-5-5",
  openai: "gpt-5",
  "openai-responses": "gpt-5",
};

/**
 * Provider, model, base URL and key: a flag first, then the process environment, then the
 * settings' `env` (`ANTHROPIC_BASE_URL`, `ANTHROPIC_API_KEY`, `ANTHROPIC_MODEL`, `OPENAI_BASE_URL`,
 * `OPENAI_API_KEY`, `OPENAI_MODEL`), then the provider's default. The stream deadlines come from
 * `ARMATURE_HEADERS_TIMEOUT_MS` and `ARMATURE_STREAM_IDLE_TIMEOUT_MS` the same way.
 */
export function resolveProviderConfig(
  flags: { provider?: string; model?: string; baseURL?: string; apiKey?: string },
  env: Readonly<Record<string, string | undefined>> = process.env,
  settingsEnv: Readonly<Record<string, string>> = {},
): ProviderConfig {
  const pick = (name: string): string | undefined => env[name] || settingsEnv[name] || undefined;
  const provider = (flags.provider ?? pick("ARMATURE_PROVIDER") ?? "anthropic") as ProviderName;
  if (!PROVIDER_NAMES.includes(provider)) {
    throw new Error(`unknown provider ${JSON.stringify(provider)}: use one of ${PROVIDER_NAMES.join(", ")}`);
  }
  const prefix = provider === "anthropic" ? "ANTHROPIC" : "OPENAI";
  const config: ProviderConfig = {
    provider,
    model: flags.model ?? pick(`${prefix}_MODEL`) ?? DEFAULT_MODELS[provider],
  };
  const baseURL = flags.baseURL ?? pick(`${prefix}_BASE_URL`);
  const apiKey = flags.apiKey ?? pick(`${prefix}_API_KEY`);
  if (baseURL !== undefined) config.baseURL = baseURL;
  if (apiKey !== undefined) config.apiKey = apiKey;
  const headers = milliseconds("ARMATURE_HEADERS_TIMEOUT_MS", pick("ARMATURE_HEADERS_TIMEOUT_MS"));
  const idle = milliseconds("ARMATURE_STREAM_IDLE_TIMEOUT_MS", pick("ARMATURE_STREAM_IDLE_TIMEOUT_MS"));
  if (headers !== undefined) config.headersTimeoutMs = headers;
  if (idle !== undefined) config.streamIdleTimeoutMs = idle;
  return config;
}

/** A positive whole number of milliseconds from a variable, or an error naming it. */
function milliseconds(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive whole number of milliseconds, not ${JSON.stringify(value)}`);
  return n;
}

/** A provider for a name; the SDK behind it is loaded on its first request. */
export function createProvider(name: ProviderName, options: ProviderOptions = {}): ModelProvider {
  switch (name) {
    case "anthropic":
      return new AnthropicProvider(options);
    case "openai":
      return new OpenAIChatProvider(options);
    case "openai-responses":
      return new OpenAIResponsesProvider(options);
  }
}
