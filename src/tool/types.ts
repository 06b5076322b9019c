import type { BoundaryReport } from "../sandbox/boundary.js";
import type { SandboxStatus } from "../sandbox/status.js";
import type { z } from "zod";
import type { ReadFileState } from "./read-file-state.js";

/** The object schemas a tool may take as input. */
export type AnyObjectSchema = z.ZodObject<z.ZodRawShape>;

// ---------------------------------------------------------------------------
// Wire blocks (Anthropic Messages shape; the OpenAI adapter converts at the edge)
// ---------------------------------------------------------------------------

export interface ToolUseBlock {
  type: "tool_use";
  id: string;
  name: string;
  input: unknown;
}

export interface TextBlock {
  type: "text";
  text: string;
}

export type ImageMediaType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

export interface ImageBlock {
  type: "image";
  source: { type: "base64"; media_type: ImageMediaType; data: string };
}

/**
 * A deferred tool a ToolSearch result loads (Anthropic's tool search wire format): the next
 * request carries that tool's full schema.
 */
export interface ToolReferenceBlock {
  type: "tool_reference";
  tool_name: string;
}

/** A PDF as a whole document (Anthropic's `document` block), for providers that read PDFs themselves. */
export interface DocumentBlock {
  type: "document";
  source: { type: "base64"; media_type: "application/pdf"; data: string };
}

export type ToolResultContent = string | Array<TextBlock | ImageBlock | ToolReferenceBlock | DocumentBlock>;

export interface ToolResultBlock {
  type: "tool_result";
  tool_use_id: string;
  content: ToolResultContent;
  is_error?: boolean;
}

/** A message a tool asks to add to the conversation after its result (e.g. an attachment). */
export interface ConversationMessage {
  role: "user" | "assistant";
  content: string | Array<TextBlock | ImageBlock | ToolResultBlock | ToolUseBlock>;
}

// ---------------------------------------------------------------------------
// Permissions as seen by the tool contract
// ---------------------------------------------------------------------------

export type PermissionMode =
  | "default"
  | "acceptEdits"
  | "plan"
  | "dontAsk"
  | "bypassPermissions"
  | "bubble"
  | "auto";

export const PERMISSION_MODES: readonly PermissionMode[] = [
  "default",
  "acceptEdits",
  "plan",
  "dontAsk",
  "bypassPermissions",
  "bubble",
  "auto",
];

/** What a tool's own `checkPermissions` says. `passthrough`: no tool-specific objection. */
export type ToolPermissionResult =
  | { behavior: "allow"; updatedInput?: Record<string, unknown>; reason?: string }
  | { behavior: "ask"; message: string; reason?: string }
  | { behavior: "deny"; message: string; reason?: string }
  /** `subject`: what the tool's check resolved; the decision uses it instead of `permissionSubject`. */
  | { behavior: "passthrough"; reason?: string; subject?: PermissionSubject };

/** One simple command that would run, as the permission engine sees it. */
export interface ShellSubcommand {
  /** argv after quote removal (words that are not static, e.g. `$(…)` or `$VAR`, kept as written). */
  argv: string[];
  /** argv joined with single spaces: what `Bash(prefix *)` rules match. */
  text: string;
  /**
   * The same command with transparent wrappers removed (`timeout 5`, `time`, `nice -n 5`, `nohup`,
   * `stdbuf -o0`, `command`, `builtin`): what really runs. Equal to `text` when there is none.
   * Wrappers that change privilege or what runs (sudo, env, xargs, watch, setsid, bash -c, eval,
   * find -exec) are not stripped here: the command they run is its own nested subcommand.
   */
  effective: string;
  /**
   * Whether this command on its own is read-only (true), or why not; absent when not judged.
   * The whole command's other reasons (shell state, limits) are in `ShellCommandFacts.reasons`.
   */
  readOnly?: true | { objection: string };
  /** Came from inside `$()`, backticks, `<()`, `bash -c`, `eval`, `find -exec`, `xargs`, sudo… */
  nested: boolean;
  /** Environment assignments before the command (`FOO=1 cmd`). */
  env: Record<string, string>;
  /** Redirections of this command, target as written after quote removal. */
  redirects: Array<{ op: string; target: string }>;
  /**
   * The paths this command alone reads and writes, as written (before any earlier `cd` is
   * applied; `ShellCommandFacts.readTargets`/`writeTargets` hold the union with those joins).
   * Absent when the command was only split, not analysed.
   */
  targets?: { read: string[]; write: string[]; fromTop?: ShellRepositoryReads };
  /**
   * More texts deny and ask rules match: the command with the global options before its
   * subcommand removed, as its option table reads them (`git push` for `git -C . push`,
   * `npm publish` for `npm --prefix . publish`, `git push` for `git -c alias.p=push p`).
   */
  ruleTexts?: string[];
  /**
   * The analysis does not model this command (`prlimit`-like wrappers it does not know, any
   * program): what it runs is unseen, so deny rules and safety checks also look at what each
   * later word may start (`mywrap rm -rf /`).
   */
  opaque?: boolean;
  /** What this command reads beyond its named targets, as its option table reads argv (src/shell/reader-facts.ts). */
  reader?: ShellReaderFacts;
  /** It writes whole trees whose names the command line does not show (src/shell/tree-writer.ts). */
  treeWriter?: ShellTreeWriter;
  /**
   * Glob words standing where the command still reads options (before `--`) whose matches may
   * begin with `-` or `@`: such a match is an option or a response file to the command, so the
   * permission check expands them and judges a match that does.
   */
  optionGlobs?: string[];
}

/** What a recursive reader or lister reads, by its canonical options. */
/**
 * Paths git reads from the top of the work tree it runs in rather than from its directory: a
 * `REV:path` object, a `:/x` or `:(top)x` pathspec, the whole tree a content reader prints
 * (`git log -p` in a subdirectory prints the whole repository's history). Where that top is
 * depends on the file system: the permission layer finds it.
 */
export interface ShellRepositoryReads {
  /** The directory git runs in, as written relative to the shell's (`.`, or `-C`'s). */
  dir: string;
  /** `--work-tree`'s directory as written (relative to `dir`'s shell directory): the top itself; else null. */
  workTree: string | null;
  /** Files read below the top (objects). */
  files: string[];
  /** Directories read with everything below them (the whole tree `.`, top pathspecs). */
  trees: string[];
}

export interface ShellReaderFacts {
  /** Operands read as paths (directory listers' operands, hard-link sources). */
  listed: string[];
  /** Directories read with everything below them. */
  recursive: string[];
  /** The walk reads through the symlinks below the roots. */
  follows: boolean;
  /**
   * What it reads below its roots: everything; what git holds (`git`: the index and the
   * history, `git log -p`; `git-index`: tracked files, `git grep`; `git-untracked`: tracked and
   * untracked files git does not ignore, `git grep --untracked`); what is not hidden (`visible`);
   * what the repository's ignore files do not ignore (`unignored`, `rg --hidden`), or what is
   * neither hidden nor ignored (`visible-unignored`, `rg`); or only names and metadata (`find`,
   * `du`, `tree -a`, `ls -aR`), and of what is not hidden only (`tree`, `ls -R`): listing a
   * file's name is not reading it, listing below a directory is.
   */
  limit: "all" | "git" | "git-index" | "git-untracked" | "visible" | "unignored" | "visible-unignored" | "names" | "visible-names";
}

/**
 * What a recursive reader's narrowing needs from the file system and git, gathered before the
 * decision without holding up the event loop (the Bash tool's check does it, once per call): per
 * git view and directory (`view + "\0" + dir`, dir canonical) the paths git may print there, and
 * per canonical root the directories below it (relative). Rule-independent; `null`: unsure. A
 * fact missing here is unsure too: the decision then runs no process of its own.
 */
export interface ReadNarrowingEvidence {
  git: Record<string, { top: string; paths: string[] } | null>;
  directories: Record<string, string[] | null>;
}

/**
 * A command that writes a tree: git's work-tree writers, archive and patch extractors, recursive
 * copies and syncs (`copy`), or a file placed into a directory under its own name (`place`).
 * For `mv`, `destination` is where the tree goes and `sources` what is moved.
 */
export interface ShellTreeWriter {
  kind: "git" | "archive" | "copy" | "place";
  move?: { destination: string; sources: string[] };
}

/**
 * Facts about a shell command that the permission engine matches rules against.
 * Produced once by the Bash tool's grammar-based analysis and carried as a value.
 */
export interface ShellCommandFacts {
  /** The command as given. */
  command: string;
  /** Every simple command that would run, nested ones included, in source order. */
  subcommands: ShellSubcommand[];
  /** Paths the command may write (redirections, cp/mv/tee/touch/rm/mkdir/ln/sed -i arguments). */
  writeTargets: string[];
  /** Paths the command reads as files (cat/head/tail/grep… arguments, input redirections). */
  readTargets: string[];
  /** Targets of `cd`. */
  cdTargets: string[];
  /** True only when every simple command is known to be read-only with safe flags. */
  readOnly: boolean;
  /** False when the parser could not fully model the command (parse error, unsupported syntax, limits). */
  complete: boolean;
  /** Why the command is not read-only or not complete, for decision reasons. */
  reasons: string[];
  /**
   * Variables that only `for NAME in WORDS` loops set, with every word they take: a path that
   * names them (`ls "$d"`) is each of those words.
   */
  loopVariables?: Record<string, string[]>;
  /**
   * Read targets that are a producer's output (`$(git ls-files)`, `… | xargs CMD`, a loop over
   * `$(…)`), with the producer's argv: the permission check runs it and judges the names it
   * prints (src/shell/producers.ts).
   */
  producers?: Record<string, string[]>;
}

/** What the producers of one call printed, by the word they stand for (`$(git ls-files)`), or why that cannot be judged. */
export type ProducedNames = Readonly<Record<string, readonly string[] | { readonly unknown: string }>>;

/**
 * What a call touches, in the terms permission rules speak. Derived from the parsed input
 * once (the backfill stage) and carried through the pipeline.
 */
export type PermissionSubject =
  | {
      kind: "file";
      access: "read" | "write";
      paths: string[];
      /**
       * The real names the tool will write, resolved once when it was checked: the decision
       * judges these instead of resolving `paths` again, so that what is judged is what is
       * written (a symlink swapped in between cannot split the two).
       */
      canonical?: string[];
    }
  | {
      kind: "shell";
      facts: ShellCommandFacts;
      /**
       * What the command's producers (`facts.producers`) printed, run once for this call before
       * it is decided (the Bash tool's check does it); a producer's word missing here is a read
       * not known in advance.
       */
      produced?: ProducedNames;
      /** What the narrowing of its recursive readers judges (see ReadNarrowingEvidence). */
      narrowing?: ReadNarrowingEvidence;
    }
  | { kind: "url"; url: string };

// ---------------------------------------------------------------------------
// Results, progress, validation
// ---------------------------------------------------------------------------

export type ValidationResult =
  | { result: true }
  | { result: false; message: string; errorCode: number | string };

export interface ToolResult<Out> {
  data: Out;
  /** Messages to add to the conversation after the tool_result. */
  newMessages?: ConversationMessage[];
  /** Applied to the context after the call (after the batch, in order, for concurrent batches). */
  contextModifier?: (context: ToolUseContext) => ToolUseContext;
}

export interface ToolProgress {
  toolUseId: string;
  /** Tool-specific progress payload (e.g. `{ stream: "stdout", chunk }` for Bash). */
  data: unknown;
}

export type ProgressCallback = (progress: ToolProgress) => void;

// ---------------------------------------------------------------------------
// The context a call runs in, grouped by concern
// ---------------------------------------------------------------------------

export interface ToolUseOptions {
  /** The assembled tool pool (built-ins then MCP). */
  tools: readonly Tool[];
  /** Names of deferred tools whose schema the model has loaded (ToolSearch). */
  loadedDeferredTools: Set<string>;
  /**
   * Names of the tools sent without their schema until loaded (decided for the pool by the
   * session's tool-search policy). Absent: every `shouldDefer` tool that is not `alwaysLoad`.
   */
  deferredTools?: ReadonlySet<string>;
  /** Connected MCP clients, by server name (opaque to the core). */
  mcpClients: ReadonlyMap<string, unknown>;
  /** The model reads PDFs given whole as `document` blocks (Anthropic): Read sends one instead of the extracted text. */
  pdfDocuments?: boolean;
  model?: string;
  debug: boolean;
  /**
   * A human or host can answer questions and approvals (an approver or a PermissionRequest hook).
   * Without one, tools that only make sense with a human (AskUserQuestion, plan mode) are disabled.
   */
  canAskUser: boolean;
}

export type RuleBehavior = "allow" | "ask" | "deny";

/** A parsed permission rule (`Bash(npm run test *)`, `Read(//etc/**)`, `mcp__github`). */
export interface PermissionRule {
  behavior: RuleBehavior;
  /** The tool name part (`Bash`, `mcp__github__create_issue`, `mcp__github`). */
  toolName: string;
  /** The part in parentheses, unescaped; undefined for a whole-tool rule (`Tool` or `Tool(*)`). */
  ruleContent?: string;
  /** The rule as written. */
  raw: string;
  /** Where it came from: a settings file path, `cli`, `session`, `library`. */
  source: string;
  /** The project root paths with a leading `/` are relative to (the settings file's project). */
  root?: string;
}

export interface PermissionContext {
  mode: PermissionMode;
  rules: readonly PermissionRule[];
  /** Directories besides cwd that tools may work in (`additionalDirectories`, `--add-dir`). */
  additionalDirectories: readonly string[];
  /** The session's OS sandbox (settings and whether it runs here); absent: no sandbox. */
  sandbox?: SandboxStatus;
  /**
   * A skill with `allowed-tools` runs (from its Skill call to the end of the agent's turn): what
   * its list names is allowed as by allow rules; everything else is decided as without it.
   */
  skill?: SkillGrant;
}

export interface SkillGrant {
  /** The skill's name, for reasons. */
  name: string;
  /** Its `allowed-tools` as allow rules (an entry that does not parse covers nothing). */
  rules: readonly PermissionRule[];
}

export interface WorkspaceState {
  /** The directory the session started in; the root of the project. */
  readonly projectDir: string;
  /** The current working directory (Bash `cd` moves it while it stays inside the working dirs). */
  cwd: string;
}

export interface SessionState {
  readonly id: string;
  /** Where this session keeps its files (persisted results, task output). */
  readonly dir: string;
  /** Environment added to tool processes (settings `env`). */
  readonly env: Readonly<Record<string, string>>;
  /** Clean-up callbacks run by `session.close()` (background tasks register here). */
  readonly cleanups: Set<() => void | Promise<void>>;
  /** Its state is kept for another process to resume (a `sessionDir` was given): close leaves what a resumed session needs (its worktree). */
  readonly resumable?: boolean;
  /** The transcript file (JSON Lines of the turns), once the session has written it. */
  transcriptPath?: string;
  /**
   * An agent loop keeps the transcript (whole messages) itself: the session's own turn
   * transcript stays out of its way.
   */
  transcriptByAgentLoop?: boolean;
}

export interface AgentContext {
  /** Undefined for the main agent. */
  agentId?: string;
  parentAgentId?: string;
  depth: number;
}

export interface DenialTracking {
  count: number;
  readonly recent: Array<{ toolName: string; toolUseId: string; reason: string }>;
}

export interface ToolUseContext {
  options: ToolUseOptions;
  abortController: AbortController;
  readFileState: ReadFileState;
  /** The conversation so far, as the host shares it (may be empty). */
  messages: ConversationMessage[];
  workspace: WorkspaceState;
  permissionContext: PermissionContext;
  agent: AgentContext;
  session: SessionState;
  denials: DenialTracking;
  /** Free slots for tool-specific state shared across calls (e.g. background task registry). */
  extensions: Map<string, unknown>;
  /** The OS boundary the permission decision chose for this call (set for the call only). */
  sandboxBoundary?: BoundaryReport;
  /** The call was approved to reach the network (a human, a rule, a hook, bypass mode), not only allowed by a mode. */
  sandboxNetwork?: boolean;
}

// ---------------------------------------------------------------------------
// The tool contract
// ---------------------------------------------------------------------------

/**
 * A tool as the runtime sees it. Build one with `buildTool`, which fills fail-closed defaults.
 * Members use method syntax so that a `Tool<SpecificSchema>` is usable where a `Tool` is expected.
 */
export interface Tool<S extends AnyObjectSchema = AnyObjectSchema, Out = unknown> {
  readonly name: string;
  readonly aliases: readonly string[];
  /** Names this tool answered to in earlier versions (looked up after aliases). */
  readonly legacyNames: readonly string[];
  /** A few words for ToolSearch keyword matching. */
  readonly searchHint?: string;
  /** The model-facing schema. Strict: unknown keys are validation errors. */
  readonly inputSchema: S;
  /**
   * A model-facing JSON Schema given as is (MCP tools: the server's schema). When set, it is
   * what the model sees, and `validateJsonInput` (not `inputSchema`) checks an input.
   */
  readonly inputJSONSchema?: Readonly<Record<string, unknown>>;
  /** Runtime-only input fields: never in the model-facing schema, rejected when a model sends them. */
  readonly internalInputSchema?: AnyObjectSchema;
  readonly outputSchema?: z.ZodType;
  readonly maxResultSizeChars: number;
  /** Listed without its schema until loaded through ToolSearch. */
  readonly shouldDefer: boolean;
  /** Always sent with its schema, even when deferral is on. */
  readonly alwaysLoad: boolean;
  /** True for MCP tools. */
  readonly isMcp: boolean;
  /** For MCP tools: the server name (for `mcp__server` rules). */
  readonly mcpServer?: string;

  description(context: ToolUseContext | undefined): string | Promise<string>;
  /** With `inputJSONSchema`: the problems of an input, one line each (empty: valid). */
  validateJsonInput?(input: unknown): string[];
  isEnabled(): boolean;
  isConcurrencySafe(input: z.infer<S>): boolean;
  isReadOnly(input: z.infer<S>): boolean;
  isDestructive(input: z.infer<S>): boolean;
  requiresUserInteraction(): boolean;
  validateInput(input: z.infer<S>, context: ToolUseContext): ValidationResult | Promise<ValidationResult>;
  checkPermissions(input: z.infer<S>, context: ToolUseContext): ToolPermissionResult | Promise<ToolPermissionResult>;
  /** What the call touches, for path / command / URL permission rules. */
  permissionSubject(input: z.infer<S>, context: ToolUseContext): PermissionSubject | undefined;
  call(input: z.infer<S>, context: ToolUseContext, onProgress: ProgressCallback): Promise<ToolResult<Out>>;
  mapToolResultToToolResultBlockParam(data: Out, toolUseId: string): ToolResultBlock;
  getToolUseSummary?(input: z.infer<S>): string;
  toAutoClassifierInput?(input: z.infer<S>): string;
  /** Derived fields for hooks and permissions (e.g. an absolute path); the original input stays in the transcript. */
  backfillObservableInput?(input: z.infer<S>, context: ToolUseContext): z.infer<S>;
  /** Whether an error result of this call should abort running sibling calls (shell failures do). */
  abortsSiblingsOnError?(input: z.infer<S>): boolean;
  /**
   * Loads, once, what the synchronous members need to judge an input (the Bash tool's grammar).
   * The runtime awaits it before it calls isConcurrencySafe / isReadOnly / backfill /
   * permissionSubject on a call of this tool; code that calls them directly awaits it first.
   */
  load?(): Promise<void>;
}

export type ToolInput<T> = T extends Tool<infer S, unknown> ? z.infer<S> : never;
