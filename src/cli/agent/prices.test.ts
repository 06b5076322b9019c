import { describe, expect, it } from "vitest";
import { DEFAULT_MODELS, PROVIDER_NAMES } from "../../providers/create-provider.js";
import { ANTHROPIC_ALIAS_MODELS, MODEL_ALIASES } from "../../providers/model-aliases.js";
import { modelPrice, usageCostUsd } from "./prices.js";

describe("the price table", () => {
  it("prices every provider's default model and every alias's model", () => {
    const models = [...PROVIDER_NAMES.map((p) => DEFAULT_MODELS[p]), ...MODEL_ALIASES.map((a) => ANTHROPIC_ALIAS_MODELS[a])];
    expect(models.filter((m) => modelPrice(m) === undefined)).toEqual([]);
  });

  it("costs a usage as the reference does for the current models (its costUSD, measured)", () => {
    const million = (kind: "input_tokens" | "output_tokens" | "cache_creation_input_tokens" | "cache_read_input_tokens") => ({
      input_tokens: 0,
      output_tokens: 0,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      [kind]: 1_000_000,
    });
    expect(usageCostUsd("claude-sonnet-5-5", million("input_tokens"))).toBe(2);
    expect(usageCostUsd("claude-sonnet-5-5", million("output_tokens"))).toBe(10);
    expect(usageCostUsd("claude-opus-5-5", million("cache_creation_input_tokens"))).toBe(5);
    expect(usageCostUsd("claude-haiku-5-5", million("cache_read_input_tokens"))).toBe(0.05);
    // The longest prefix wins: a dated id of a listed model has its price.
    expect(usageCostUsd("claude-opus-5-5-20261101", million("input_tokens"))).toBe(4);
    expect(modelPrice("some-local-model")).toBeUndefined();
  });
});
