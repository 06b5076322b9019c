import type { z } from "zod";
import { nameSystemError } from "../fs/errno.js";

/** Wraps a message the way models were trained to read tool errors. */
export function toolUseError(message: string): string {
  return `<tool_use_error>${message}</tool_use_error>`;
}

function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let cur: unknown = input;
  for (const key of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return cur;
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out;
}

/** One line per problem: missing parameter, unexpected parameter, wrong type with expected and received. */
export function formatZodIssues(error: z.ZodError, input: unknown): string[] {
  const lines: string[] = [];
  for (const issue of error.issues) {
    const path = formatPath(issue.path);
    switch (issue.code) {
      case "invalid_type": {
        const received = valueAt(input, issue.path);
        if (issue.path.length === 0) {
          lines.push(`The input must be a JSON object, but a ${describeType(received)} was provided`);
        } else if (received === undefined) {
          lines.push(`The required parameter \`${path}\` is missing`);
        } else {
          lines.push(`The parameter \`${path}\` type is expected as \`${issue.expected}\` but provided as \`${describeType(received)}\``);
        }
        break;
      }
      case "unrecognized_keys":
        for (const key of issue.keys) {
          const full = formatPath([...issue.path, key]);
          lines.push(`An unexpected parameter \`${full}\` was provided`);
        }
        break;
      case "invalid_value":
        lines.push(`The parameter \`${path}\` must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}, but ${JSON.stringify(valueAt(input, issue.path))} was provided`);
        break;
      default:
        lines.push(path ? `The parameter \`${path}\` is invalid: ${issue.message}` : issue.message);
    }
  }
  return lines;
}

export function inputValidationMessage(toolName: string, error: z.ZodError, input: unknown): string {
  return `InputValidationError: ${toolName} failed due to the following ${error.issues.length === 1 ? "issue" : "issues"}:\n${formatZodIssues(error, input).join("\n")}`;
}

/** A thrown value reduced to what is stable: errno code, error name, message. */
export interface ClassifiedError {
  name: string;
  code?: string;
  message: string;
}

export function classifyError(thrown: unknown): ClassifiedError {
  // "Unknown system error -122" is EDQUOT: the code and the message name it.
  const err = nameSystemError(thrown);
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code;
    const classified: ClassifiedError = {
      name: err.name && err.name !== "Error" ? err.name : code ? "SystemError" : "Error",
      message: err.message || String(err),
    };
    if (typeof code === "string") classified.code = code;
    return classified;
  }
  if (typeof err === "string") return { name: "Error", message: err };
  let message: string;
  try {
    message = JSON.stringify(err) ?? String(err);
  } catch {
    message = String(err);
  }
  return { name: "NonErrorThrown", message };
}

export function formatClassifiedError(e: ClassifiedError): string {
  const label = e.code ? `Error [${e.code}]` : e.name === "Error" ? "Error" : `Error (${e.name})`;
  return `${label}: ${e.message}`;
}
