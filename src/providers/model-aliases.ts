/**
 * Model aliases as the reference CLI takes them (`--model opus`, an agent definition's
 * `model: "haiku"`, `set_model`): on Anthropic's API each names the current model of its family;
 * the reference's environment variables (`ANTHROPIC_DEFAULT_OPUS_MODEL`, … from the process or a
 * settings file's `env`) override one. An OpenAI-compatible server has no such family: an alias
 * there needs one of those variables, or it is an error that names the alias and the variable.
 */
export const MODEL_ALIASES = ["opus", "sonnet", "haiku"] as const;
export type ModelAlias = (typeof MODEL_ALIASES)[number];

/** The current Anthropic model of each alias (December 2026). Every one has a price (cli/agent/prices.ts). */
export const ANTHROPIC_ALIAS_MODELS: Readonly<Record<ModelAlias, string>> = {
  opus: "claude-opus-5-5",
  sonnet: "claude-sonnet-5-5",
  haiku: "claude-haiku-5-5",
};

/** The variable that maps an alias to a model id (the reference's name). */
export function aliasVariable(alias: ModelAlias): string {
  return `ANTHROPIC_DEFAULT_${alias.toUpperCase()}_MODEL`;
}

export function isModelAlias(model: string): model is ModelAlias {
  return (MODEL_ALIASES as readonly string[]).includes(model);
}

export class ModelAliasError extends Error {
  constructor(
    readonly alias: ModelAlias,
    readonly provider: string,
  ) {
    super(
      `the model alias ${JSON.stringify(alias)} names an Anthropic model family, which the ${provider} provider does not serve: ` +
        `pass a model id, or map the alias with ${aliasVariable(alias)} (in the environment or a settings file's "env")`,
    );
    this.name = "ModelAliasError";
  }
}

/** Each alias's model for this provider: the variables first, then (Anthropic only) the current ids. */
export function modelAliases(provider: string, env: Readonly<Record<string, string | undefined>>): Partial<Record<ModelAlias, string>> {
  const out: Partial<Record<ModelAlias, string>> = {};
  for (const alias of MODEL_ALIASES) {
    const mapped = env[aliasVariable(alias)];
    if (mapped !== undefined && mapped.trim() !== "") out[alias] = mapped.trim();
    else if (provider === "anthropic") out[alias] = ANTHROPIC_ALIAS_MODELS[alias];
  }
  return out;
}

/** `model` with an alias resolved (a model id is returned as it is); throws ModelAliasError for an alias the provider has no model for. */
export function resolveModelAlias(model: string, provider: string, env: Readonly<Record<string, string | undefined>>): string {
  if (!isModelAlias(model)) return model;
  const resolved = modelAliases(provider, env)[model];
  if (resolved === undefined) throw new ModelAliasError(model, provider);
  return resolved;
}
