import type { PermissionRule, Tool, ToolUseBlock } from "../tool/types.js";
import { addPermissionRules, settingsPathFor } from "../settings/write.js";
import { normaliseBashSpec } from "../shell/bash-rules.js";
import { resolvePermission, type ResolveOptions } from "./resolve.js";
import { parseRule, RuleParseError } from "./rule.js";
import type { ApprovalAnswer, ApprovalRequest, Approver, PermissionDecision, PermissionRequest, PermissionResolver, RememberScope } from "./types.js";

export type ClassifierVerdict = "allow" | "ask" | "deny" | { behavior: "allow" | "ask" | "deny"; reason?: string };

export interface ClassifierContext {
  tool: Tool;
  input: Record<string, unknown>;
  /** The decision that asked, with its reason. */
  decision: PermissionDecision;
  agentId?: string;
}

/** Decides for a human in `auto` mode. Only asks the resolver marks `classifiable` reach it. */
export type AutoClassifier = (toolUse: ToolUseBlock, ctx: ClassifierContext) => ClassifierVerdict | Promise<ClassifierVerdict>;

export interface PermissionEngineOptions {
  /** Where `local` and `project` rules are saved. */
  projectDir: string;
  /** The human: a terminal prompt, a UI, the host's `canUseTool`. Without one, what asks is denied. */
  approver?: Approver;
  /** The auto-mode classifier: a function, or an object with `classify`. */
  classifier?: AutoClassifier | { classify: AutoClassifier };
  resolveOptions?: ResolveOptions;
  /** For the `user` scope (default: ~/.armature). */
  home?: string;
  userDir?: string;
  /** Rules remembered earlier in this session (a session restored from its saved state). */
  rememberedRules?: readonly PermissionRule[];
  /** After this many classifier denials in a row, the classifier's denials go to the human instead (default 3). */
  maxConsecutiveClassifierDenials?: number;
}

export interface DenialRecord {
  toolName: string;
  toolUseId: string;
  reason: string;
  source: string;
}

export interface PermissionEngine {
  /** The resolver with the session's remembered rules added. Pass as `resolvePermission`. */
  resolvePermission: PermissionResolver;
  /** Classifier, then human, then "always allow" bookkeeping. Pass as `canUseTool`. */
  approver: Approver;
  /** Rules remembered in this session (and rules saved to files, which apply at once). */
  readonly sessionRules: readonly PermissionRule[];
  /** Calls the classifier or the human denied in this session. */
  readonly denials: readonly DenialRecord[];
  /** Notes for the user (a rule that could not be saved). */
  readonly notices: string[];
}

/** A saved rule never approves every command: `Bash`, `Bash(*)` and `Bash( *)` are refused. */
export function isOverBroad(rule: PermissionRule): boolean {
  if (rule.toolName.includes("*")) return true;
  if (rule.toolName !== "Bash") return false;
  if (rule.ruleContent === undefined) return true;
  const spec = normaliseBashSpec(rule.ruleContent);
  return /^[\s*]*$/.test(spec);
}

const cannotAsk = (d: PermissionDecision): string =>
  `${d.reason}, and this run cannot ask for approval. Ask the user to allow it (e.g. an allow rule), or do something that does not need approval.`;

/**
 * The permission engine of one session: the pure resolver plus what lives across calls —
 * rules remembered by "always allow", the auto-mode classifier, denials.
 */
export function createPermissionEngine(options: PermissionEngineOptions): PermissionEngine {
  const sessionRules: PermissionRule[] = [...(options.rememberedRules ?? [])];
  const denials: DenialRecord[] = [];
  const notices: string[] = [];
  let consecutiveClassifierDenials = 0;
  const maxDenials = options.maxConsecutiveClassifierDenials ?? 3;
  const classifier = options.classifier;
  const classify: AutoClassifier | undefined = typeof classifier === "function" ? classifier : classifier ? (t, c) => classifier.classify(t, c) : undefined;
  let merged: { base: readonly PermissionRule[]; count: number; rules: readonly PermissionRule[] } | undefined;

  const rulesFor = (base: readonly PermissionRule[]): readonly PermissionRule[] => {
    if (sessionRules.length === 0) return base;
    if (!merged || merged.base !== base || merged.count !== sessionRules.length) {
      merged = { base, count: sessionRules.length, rules: [...base, ...sessionRules] };
    }
    return merged.rules;
  };

  const engineResolve: PermissionResolver = (request: PermissionRequest) =>
    resolvePermission({ ...request, permissionContext: { ...request.permissionContext, rules: rulesFor(request.permissionContext.rules) } }, options.resolveOptions);

  const deny = (request: ApprovalRequest, reason: string, source: string): ApprovalAnswer => {
    denials.push({ toolName: request.tool.name, toolUseId: request.toolUse.id, reason, source });
    return { behavior: "deny", message: reason, source };
  };

  const remember = async (scope: RememberScope, raws: readonly string[]): Promise<void> => {
    const file = scope === "session" ? "session" : settingsPathFor(scope, options.projectDir, { home: options.home, userDir: options.userDir });
    const accepted: PermissionRule[] = [];
    for (const raw of raws) {
      let rule: PermissionRule;
      try {
        rule = parseRule(raw, "allow", file, options.projectDir);
      } catch (err) {
        if (err instanceof RuleParseError) {
          notices.push(`Not remembered: ${err.message}`);
          continue;
        }
        throw err;
      }
      if (isOverBroad(rule)) {
        notices.push(`Not remembered: ${raw} would allow every command; remember a narrower rule such as Bash(npm run test *)`);
        continue;
      }
      accepted.push(rule);
    }
    if (accepted.length === 0) return;
    if (scope !== "session") {
      try {
        await addPermissionRules(file, "allow", accepted.map((r) => r.raw), { home: options.home, userDir: options.userDir });
      } catch (err) {
        notices.push(`Could not save ${accepted.map((r) => r.raw).join(", ")} to ${file}: ${(err as Error).message}; remembered for this session only`);
        for (const r of accepted) r.source = "session";
      }
    }
    sessionRules.push(...accepted);
  };

  const approver: Approver = async (request) => {
    const { decision } = request;
    if (decision.classifiable && classify) {
      const raw = await classify(request.toolUse, { tool: request.tool, input: request.input, decision, agentId: request.agentId });
      const verdict = typeof raw === "string" ? { behavior: raw } : raw;
      if (verdict.behavior === "allow") {
        consecutiveClassifierDenials = 0;
        return { behavior: "allow", reason: verdict.reason ?? "Allowed by the auto-mode classifier", source: "classifier" };
      }
      if (verdict.behavior === "deny" && consecutiveClassifierDenials < maxDenials) {
        consecutiveClassifierDenials++;
        return deny(request, verdict.reason ?? `The auto-mode classifier denied this call (${decision.reason}). Try a safer way, or ask the user.`, "classifier");
      }
      // ask, or too many denials in a row: a human decides.
    }
    if (!options.approver) return { ...deny(request, cannotAsk(decision), decision.source ?? "approver"), unasked: true };
    const answer = await options.approver(request);
    if (answer.behavior === "deny") {
      return deny(request, answer.message ?? "The user declined this call. Do not retry it as is; ask the user what to do instead.", answer.source ?? "approver");
    }
    if (answer.remember) await remember(answer.remember, answer.rules ?? decision.suggestedRules ?? []);
    return answer;
  };

  return {
    resolvePermission: engineResolve,
    approver,
    get sessionRules() {
      return sessionRules;
    },
    get denials() {
      return denials;
    },
    notices,
  };
}
