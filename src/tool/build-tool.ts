import type { z } from "zod";
import type {
  AnyObjectSchema,
  ProgressCallback,
  Tool,
  ToolPermissionResult,
  ToolResult,
  ToolResultBlock,
  ToolUseContext,
  ValidationResult,
  PermissionSubject,
} from "./types.js";

export const DEFAULT_MAX_RESULT_SIZE_CHARS = 50_000;

/** What a tool author writes: the required members, and any of the optional ones. */
export interface ToolDef<S extends AnyObjectSchema, Out> {
  name: string;
  description: string | ((context: ToolUseContext | undefined) => string | Promise<string>);
  inputSchema: S;
  call(input: z.infer<S>, context: ToolUseContext, onProgress: ProgressCallback): Promise<ToolResult<Out>>;
  aliases?: readonly string[];
  legacyNames?: readonly string[];
  searchHint?: string;
  internalInputSchema?: AnyObjectSchema;
  inputJSONSchema?: Readonly<Record<string, unknown>>;
  validateJsonInput?(input: unknown): string[];
  outputSchema?: z.ZodType;
  maxResultSizeChars?: number;
  shouldDefer?: boolean;
  alwaysLoad?: boolean;
  isMcp?: boolean;
  mcpServer?: string;
  isEnabled?(): boolean;
  isConcurrencySafe?(input: z.infer<S>): boolean;
  isReadOnly?(input: z.infer<S>): boolean;
  isDestructive?(input: z.infer<S>): boolean;
  requiresUserInteraction?(): boolean;
  validateInput?(input: z.infer<S>, context: ToolUseContext): ValidationResult | Promise<ValidationResult>;
  checkPermissions?(input: z.infer<S>, context: ToolUseContext): ToolPermissionResult | Promise<ToolPermissionResult>;
  permissionSubject?(input: z.infer<S>, context: ToolUseContext): PermissionSubject | undefined;
  mapToolResultToToolResultBlockParam?(data: Out, toolUseId: string): ToolResultBlock;
  getToolUseSummary?(input: z.infer<S>): string;
  toAutoClassifierInput?(input: z.infer<S>): string;
  backfillObservableInput?(input: z.infer<S>, context: ToolUseContext): z.infer<S>;
  abortsSiblingsOnError?(input: z.infer<S>): boolean;
  load?(): Promise<void>;
}

const VALID: ValidationResult = { result: true };
const PASSTHROUGH: ToolPermissionResult = { behavior: "passthrough" };

/** Text for a tool's data when the tool does not map it itself. */
export function defaultResultText(data: unknown): string {
  if (typeof data === "string") return data;
  if (data === undefined || data === null) return "";
  return JSON.stringify(data, null, 2);
}

/**
 * Fills the fail-closed defaults: a tool that says nothing is enabled, not concurrency-safe,
 * not read-only, not destructive, raises no objection of its own (the general permission
 * system still decides), and is persisted to disk past 50,000 characters.
 */
/**
 * A Zod 4 schema carries `_zod`; a Zod 3 one only `_def`. Mixing them fails deep inside parsing
 * and schema conversion, so it is refused here with what to do instead.
 */
function assertZod4(name: string, key: string, schema: unknown): void {
  if (schema === undefined) return;
  if (typeof schema === "object" && schema !== null && "_zod" in schema) return;
  const zod3 = typeof schema === "object" && schema !== null && "_def" in schema;
  throw new TypeError(
    zod3
      ? `buildTool(${JSON.stringify(name)}): ${key} is a Zod 3 schema; armature needs Zod 4 (zod ≥ 4.0.0, a peer dependency: npm install zod@^4, then import { z } from "zod")`
      : `buildTool(${JSON.stringify(name)}): ${key} must be a Zod 4 object schema, e.g. z.object({ … }) from zod ≥ 4.0.0`,
  );
}

export function buildTool<S extends AnyObjectSchema, Out>(def: ToolDef<S, Out>): Tool<S, Out> {
  assertZod4(def.name, "inputSchema", def.inputSchema);
  assertZod4(def.name, "internalInputSchema", def.internalInputSchema);
  assertZod4(def.name, "outputSchema", def.outputSchema);
  const description = def.description;
  return {
    name: def.name,
    aliases: def.aliases ?? [],
    legacyNames: def.legacyNames ?? [],
    searchHint: def.searchHint,
    inputSchema: def.inputSchema,
    internalInputSchema: def.internalInputSchema,
    inputJSONSchema: def.inputJSONSchema,
    validateJsonInput: def.validateJsonInput,
    outputSchema: def.outputSchema,
    maxResultSizeChars: def.maxResultSizeChars ?? DEFAULT_MAX_RESULT_SIZE_CHARS,
    shouldDefer: def.shouldDefer ?? false,
    alwaysLoad: def.alwaysLoad ?? false,
    isMcp: def.isMcp ?? false,
    mcpServer: def.mcpServer,
    description: typeof description === "string" ? () => description : description,
    isEnabled: def.isEnabled ?? (() => true),
    isConcurrencySafe: def.isConcurrencySafe ?? (() => false),
    isReadOnly: def.isReadOnly ?? (() => false),
    isDestructive: def.isDestructive ?? (() => false),
    requiresUserInteraction: def.requiresUserInteraction ?? (() => false),
    validateInput: def.validateInput ?? (() => VALID),
    checkPermissions: def.checkPermissions ?? (() => PASSTHROUGH),
    permissionSubject: def.permissionSubject ?? (() => undefined),
    call: def.call,
    mapToolResultToToolResultBlockParam:
      def.mapToolResultToToolResultBlockParam ??
      ((data: Out, toolUseId: string): ToolResultBlock => ({
        type: "tool_result",
        tool_use_id: toolUseId,
        content: defaultResultText(data),
      })),
    getToolUseSummary: def.getToolUseSummary,
    toAutoClassifierInput: def.toAutoClassifierInput,
    backfillObservableInput: def.backfillObservableInput,
    abortsSiblingsOnError: def.abortsSiblingsOnError,
    load: def.load,
  };
}
