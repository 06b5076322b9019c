import { z } from "zod";
import { lazyJsonSchemaValidator } from "../../mcp/json-schema.js";
import { buildTool } from "../../tool/build-tool.js";
import type { AnyObjectSchema, Tool } from "../../tool/types.js";

export const STRUCTURED_OUTPUT_TOOL = "StructuredOutput";

/** The value the model handed in, once it did. */
export interface StructuredOutputHolder {
  value?: unknown;
  given: boolean;
}

/**
 * `--json-schema` / the SDK's `outputFormat`: the run's answer is the input of one call to this
 * tool, whose schema is the caller's. A value that does not fit is refused with what is wrong,
 * so the model can call again; the last valid one is the result's `structured_output`.
 */
export function structuredOutputTool(schema: Record<string, unknown>, holder: StructuredOutputHolder): Tool {
  const validate = lazyJsonSchemaValidator(schema, "The JSON schema of --json-schema");
  return buildTool<AnyObjectSchema, string>({
    name: STRUCTURED_OUTPUT_TOOL,
    description:
      "Hand in the final answer of this task as structured data. Call it exactly once, at the end, with an input that fits the schema; the input is the answer the caller receives.",
    inputSchema: z.looseObject({}) as unknown as AnyObjectSchema,
    inputJSONSchema: schema,
    validateJsonInput: validate,
    alwaysLoad: true,
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    checkPermissions: () => ({ behavior: "allow" }),
    async call(input) {
      holder.value = input;
      holder.given = true;
      return { data: "Structured output provided successfully" };
    },
  }) as unknown as Tool;
}
