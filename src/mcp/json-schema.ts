import { createRequire } from "node:module";
import type { Ajv, ErrorObject, ValidateFunction } from "ajv";
import type { Ajv2019 } from "ajv/dist/2019.js";
import type { Ajv2020 } from "ajv/dist/2020.js";

type AnyAjv = Ajv | Ajv2019 | Ajv2020;
/** Ajv (CommonJS, some 60 files) is loaded at the first compile, not when a process starts. */
const loadCjs = createRequire(import.meta.url);

// `validateSchema: false`: the meta-schema is not compiled (hundreds of ms on the first call); a schema
// that cannot be compiled still fails closed below.
const OPTIONS = { strict: false, allErrors: true, validateFormats: false, validateSchema: false, logger: false } as const;
let draft7: Ajv | undefined;
let draft2019: Ajv2019 | undefined;
let draft2020: Ajv2020 | undefined;

/** The validator for the draft a schema names (`$schema`); draft-07 when it names none. */
function ajvFor(schema: Readonly<Record<string, unknown>>): AnyAjv {
  const id = typeof schema.$schema === "string" ? schema.$schema : "";
  if (id.includes("2020-12")) return (draft2020 ??= new (loadCjs("ajv/dist/2020.js") as { Ajv2020: typeof Ajv2020 }).Ajv2020(OPTIONS));
  if (id.includes("2019-09")) return (draft2019 ??= new (loadCjs("ajv/dist/2019.js") as { Ajv2019: typeof Ajv2019 }).Ajv2019(OPTIONS));
  return (draft7 ??= new (loadCjs("ajv") as { Ajv: typeof Ajv }).Ajv(OPTIONS));
}

function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function pathOf(instancePath: string, extra?: string): string {
  const parts = instancePath.split("/").slice(1).map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
  if (extra !== undefined) parts.push(extra);
  let out = "";
  for (const p of parts) out += /^\d+$/.test(p) ? `[${p}]` : out === "" ? p : `.${p}`;
  return out;
}

function valueAt(input: unknown, instancePath: string): unknown {
  let cur = input;
  for (const p of instancePath.split("/").slice(1)) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string, unknown>)[p.replace(/~1/g, "/").replace(/~0/g, "~")];
  }
  return cur;
}

/** Ajv's errors as the lines our Zod errors use (missing, unexpected, wrong type, not one of). */
export function formatAjvErrors(errors: readonly ErrorObject[], input: unknown): string[] {
  const lines: string[] = [];
  for (const e of errors) {
    const params = e.params as Record<string, unknown>;
    let line: string;
    switch (e.keyword) {
      case "required":
        line = `The required parameter \`${pathOf(e.instancePath, String(params.missingProperty))}\` is missing`;
        break;
      case "additionalProperties":
        line = `An unexpected parameter \`${pathOf(e.instancePath, String(params.additionalProperty))}\` was provided`;
        break;
      case "type":
        line = e.instancePath === ""
          ? `The input must be a JSON ${String(params.type)}, but a ${describeType(input)} was provided`
          : `The parameter \`${pathOf(e.instancePath)}\` type is expected as \`${String(params.type)}\` but provided as \`${describeType(valueAt(input, e.instancePath))}\``;
        break;
      case "enum":
        line = `The parameter \`${pathOf(e.instancePath)}\` must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}, but ${JSON.stringify(valueAt(input, e.instancePath))} was provided`;
        break;
      default:
        line = e.instancePath === "" ? `The input ${e.message ?? "is invalid"}` : `The parameter \`${pathOf(e.instancePath)}\` ${e.message ?? "is invalid"}`;
    }
    if (!lines.includes(line)) lines.push(line);
  }
  return lines;
}

export interface JsonSchemaValidator {
  /** The problems of an input, one line each; empty when it is valid. */
  (input: unknown): string[];
}

/**
 * A validator compiled on first use (a pool of a thousand tools compiles only what is called).
 * A schema that does not compile fails closed: every input is refused with the reason.
 */
export function lazyJsonSchemaValidator(schema: Readonly<Record<string, unknown>>, what: string): JsonSchemaValidator {
  let validate: ValidateFunction | undefined;
  let compileError: string | undefined;
  return (input) => {
    if (!validate && compileError === undefined) {
      try {
        validate = ajvFor(schema).compile(schema as Record<string, unknown>);
      } catch (err) {
        compileError = (err as Error).message;
      }
    }
    if (!validate) {
      return [`${what} has an input schema that cannot be used (${compileError ?? "unknown error"}), so the call was not sent. Tell the user; the server's tool definition needs fixing.`];
    }
    if (validate(input)) return [];
    return formatAjvErrors(validate.errors ?? [], input);
  };
}
