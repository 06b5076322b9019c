import type { Usage } from "../../providers/model.js";

/**
 * USD per million tokens, by model id prefix (the longest matching prefix wins). Published list
 * prices as of December 2026; cache writes and reads are priced where the provider bills them
 * separately. A model not listed costs 0 and the result says so (`total_cost_usd` is then a
 * lower bound, not a bill). Keep the README's table in step with this one.
 */
export interface ModelPrice {
  input: number;
  output: number;
  cacheWrite: number;
  cacheRead: number;
}

const anthropic = (input: number, output: number): ModelPrice => ({ input, output, cacheWrite: input * 1.25, cacheRead: input * 0.1 });
const openai = (input: number, output: number, cachedInput: number): ModelPrice => ({ input, output, cacheWrite: input, cacheRead: cachedInput });

/** A row measured on the reference CLI (its `costUSD` for a million tokens of each kind). */
const measured = (input: number, output: number, cacheWrite: number, cacheRead: number): ModelPrice => ({ input, output, cacheWrite, cacheRead });

export const MODEL_PRICES: Readonly<Record<string, ModelPrice>> = {
  // The current models (and the aliases opus, sonnet, haiku): as the reference 2.1.337 prices
  // them, each kind of token measured alone against a scripted reply (December 2026).
  "claude-opus-5-5": measured(4, 20, 5, 0.2),
  "claude-sonnet-5-5": measured(2, 10, 2.5, 0.1),
  "claude-haiku-5-5": measured(0.5, 0.5, 0.625, 0.05),
  "claude-opus-4-5": anthropic(5, 25),
  "claude-opus-4-6": anthropic(5, 25),
  "claude-opus-4-1": anthropic(15, 75),
  "claude-opus-4-0": anthropic(15, 75),
  "claude-opus-4-2": anthropic(15, 75),
  "claude-opus-4": anthropic(15, 75),
  "claude-sonnet-4": anthropic(3, 15),
  "claude-3-7-sonnet": anthropic(3, 15),
  "claude-3-5-sonnet": anthropic(3, 15),
  "claude-haiku-4": anthropic(1, 5),
  "claude-3-5-haiku": anthropic(0.8, 4),
  "claude-3-haiku": anthropic(0.25, 1.25),
  "gpt-5-nano": openai(0.05, 0.4, 0.005),
  "gpt-5-mini": openai(0.25, 2, 0.025),
  "gpt-5": openai(1.25, 10, 0.125),
  "gpt-4.1-nano": openai(0.1, 0.4, 0.025),
  "gpt-4.1-mini": openai(0.4, 1.6, 0.1),
  "gpt-4.1": openai(2, 8, 0.5),
  "gpt-4o-mini": openai(0.15, 0.6, 0.075),
  "gpt-4o": openai(2.5, 10, 1.25),
  "o4-mini": openai(1.1, 4.4, 0.275),
  "o3": openai(2, 8, 0.5),
};

export function modelPrice(model: string): ModelPrice | undefined {
  let best: string | undefined;
  for (const prefix of Object.keys(MODEL_PRICES)) {
    if (model.startsWith(prefix) && (best === undefined || prefix.length > best.length)) best = prefix;
  }
  return best === undefined ? undefined : MODEL_PRICES[best];
}

/** The cost of `usage` on `model`, or undefined when the model is not in the table. */
export function usageCostUsd(model: string, usage: Usage): number | undefined {
  const price = modelPrice(model);
  if (!price) return undefined;
  const cost =
    (usage.input_tokens * price.input +
      usage.output_tokens * price.output +
      usage.cache_creation_input_tokens * price.cacheWrite +
      usage.cache_read_input_tokens * price.cacheRead) /
    1_000_000;
  return Math.round(cost * 1e8) / 1e8;
}
