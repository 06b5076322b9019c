import type { PermissionRule, ShellSubcommand } from "../tool/types.js";
import { readdirSync, type Dirent } from "node:fs";
import { posix } from "node:path";
import { globSegmentMatcher } from "../shell/glob-match.js";
import { normaliseBashSpec } from "../shell/bash-rules.js";
import { callTextFacts, commandFacts } from "../shell/command-facts.js";
import { allowRuleForCall, allowRuleForSubcommand, allowRuleForTarget, firstRestrictiveRule, nameGlob, restrictiveEditRules, restrictiveReadRules, ruleReachingBelow } from "./match.js";
import { decideByMode, forcedAsk, isReadOnlyCall } from "./modes.js";
import { pathForms, type Canonicalize, type PathForms } from "./paths.js";
import { gitOptionsStayInRepository } from "../shell/git-repo.js";
import { hasBrace, hasGlob, isDynamicWord } from "../shell/shared.js";
import { criticalDeletion, criticalRemoval, gitDirCreatedBy, globMayNameProtected, protectedPathReason, UNLINKERS, type CriticalContext } from "./safety.js";
import { chooseBoundary, sandboxActive } from "../sandbox/boundary.js";
import { buildScope, locateWord, outsideTargets, type ResolveOptions, type Scope, type Target } from "./scope.js";
import { suggestRules } from "./suggest.js";
import { protectedBelow, treeContentsReason } from "./tree-writes.js";
import { treePlan } from "../shell/tree-contents.js";
import type { TreePlan } from "../shell/tree-plan.js";
import { evidenceKey, gitListingAvoids, gitPathsSync, gitViewOf, ignoreFilesMayUnhide, listsNoRestrictedDirectory } from "./read-narrowing.js";
import type { PermissionDecision, PermissionRequest } from "./types.js";

export type { ResolveOptions } from "./scope.js";

/** Does a rule name this tool (whole-tool rules and MCP server rules)? Used to hide tools denied outright. */
export function ruleNamesTool(rule: PermissionRule, toolName: string, mcpServer: string | undefined): boolean {
  if (rule.toolName === toolName) return true;
  if (rule.toolName.includes("*")) return nameGlob(rule.toolName).test(toolName);
  // `mcp__server` and `mcp__server__*` cover every tool of that server.
  return mcpServer !== undefined && rule.ruleContent === undefined && rule.toolName === `mcp__${mcpServer}`;
}

function byRule(behavior: PermissionDecision["behavior"], rule: PermissionRule, what: string): PermissionDecision {
  return { behavior, reason: `${what} by rule ${rule.raw}`, rule: rule.raw, source: rule.source };
}

/**
 * The decision chain: a hook's deny → deny rules → ask rules (and a hook's ask) → the tool's
 * own check → safety checks → allow rules (and a hook's allow) → the mode. (A tool's deny is
 * final even after an ask rule; a tool's allow holds only inside the working directories.) Pure: the same
 * request (and the same file system under its paths) gives the same decision.
 */
export function resolvePermission(request: PermissionRequest, options: ResolveOptions = {}): PermissionDecision {
  const scope = buildScope(request, options);
  return withBoundary(decide(request, scope), scope);
}

/**
 * A shell call's decision names the OS boundary it runs in (an ask: once approved), when the
 * session has a sandbox: read-only for a read-only call, else the working directories.
 */
function withBoundary(decision: PermissionDecision, scope: Scope): PermissionDecision {
  const { request } = scope;
  const sandbox = request.permissionContext.sandbox;
  if (!sandbox || !scope.shell || decision.behavior === "deny" || decision.sandbox !== undefined) return decision;
  const boundary = chooseBoundary({
    sandbox,
    readOnly: isReadOnlyCall(scope),
    commands: scope.shell.subcommands.map(commandFacts),
    disableSandbox: request.input.dangerouslyDisableSandbox === true,
  });
  return { ...decision, sandbox: boundary };
}

function decide(request: PermissionRequest, scope: Scope): PermissionDecision {
  const { hookDecision, permissionContext, toolPermission, tool } = request;
  const rules = permissionContext.rules;
  const withSuggestions = (d: PermissionDecision): PermissionDecision => {
    if (d.behavior === "ask") {
      const suggested = suggestRules(scope, allowRules(rules));
      if (suggested.length > 0) d.suggestedRules = suggested;
    }
    return d;
  };

  if (hookDecision?.behavior === "deny") {
    return { behavior: "deny", reason: hookDecision.reason ?? "Denied by a PreToolUse hook", rule: null, source: "hook" };
  }
  const deny = firstRestrictiveRule(rules, "deny", scope);
  if (deny) return byRule("deny", deny, "Denied");
  // A tool's own deny is final too: an ask rule must not turn it into something a human can approve.
  const toolDeny: PermissionDecision | null =
    toolPermission.behavior === "deny" ? { behavior: "deny", reason: toolPermission.message, rule: null, source: `tool:${tool.name}` } : null;
  const ask = firstRestrictiveRule(rules, "ask", scope);
  if (ask) return toolDeny ?? withSuggestions(forcedAsk(scope, byRule("ask", ask, "Approval required")));
  if (hookDecision?.behavior === "ask") {
    const reason = hookDecision.reason ?? "A PreToolUse hook asked for approval";
    return toolDeny ?? withSuggestions(forcedAsk(scope, { behavior: "ask", reason, rule: null, source: "hook" }));
  }
  if (toolDeny) return toolDeny;
  // Safety checks before the tool's own ask, so that an ask that must reach a human is never
  // handed to the auto-mode classifier as the tool's ask.
  const safety = safetyCheck(scope);
  if (safety) return withSuggestions(forcedAsk(scope, { behavior: "ask", reason: safety, rule: null, source: "safety" }));
  const interactive = safeCall(() => tool.requiresUserInteraction());
  // Leaving the OS sandbox is a person's call in every mode (no classifier, no bypass), unless
  // the user's own settings said bypassPermissions may do it unasked.
  const leavesSandbox = toolPermission.behavior === "ask" && request.input.dangerouslyDisableSandbox === true && sandboxActive(permissionContext.sandbox);
  const bypassUnasked = leavesSandbox && permissionContext.sandbox?.unsandboxedUnasked === true;
  if (toolPermission.behavior === "ask" && (permissionContext.mode !== "bypassPermissions" || interactive || (leavesSandbox && !bypassUnasked))) {
    const d: PermissionDecision = { behavior: "ask", reason: toolPermission.message, rule: null, source: `tool:${tool.name}` };
    return withSuggestions(interactive || leavesSandbox ? forcedAsk(scope, d) : askInMode(scope, d));
  }

  // Plan mode is read-only: no allow rule or hook turns a change into something that runs.
  if (permissionContext.mode === "plan" && !isReadOnlyCall(scope)) return decideByMode(scope);
  const allowed = allowByRules(scope, permissionContext.mode === "auto" ? autoModeAllowRules(rules) : allowRules(rules));
  if (allowed) return allowed;
  const granted = skillGrant(scope);
  if (granted) return granted;
  if (hookDecision?.behavior === "allow") {
    return { behavior: "allow", reason: hookDecision.reason ?? "Allowed by a PreToolUse hook", rule: null, source: "hook" };
  }
  const staysInside = outsideTargets(scope, [...scope.reads, ...scope.writes, ...scope.cds]).length === 0;
  if (toolPermission.behavior === "allow" && staysInside) {
    const decision: PermissionDecision = { behavior: "allow", reason: toolPermission.reason ?? `Allowed by ${tool.name}`, rule: null, source: `tool:${tool.name}` };
    if (toolPermission.updatedInput) decision.updatedInput = toolPermission.updatedInput;
    return decision;
  }
  return withSuggestions(decideByMode(scope));
}

/**
 * A running skill's `allowed-tools` act as allow rules until the turn ends: at the allow rules'
 * place in the chain, so deny and ask rules, the safety checks, a tool's own ask and plan mode
 * still come first (and auto mode sets broad exec rules aside, as it does with the user's).
 */
function skillGrant(scope: Scope): PermissionDecision | null {
  const { skill, mode } = scope.request.permissionContext;
  if (!skill) return null;
  const granted = allowByRules(scope, mode === "auto" ? skill.rules.filter((r) => !isBroadExecRule(r)) : skill.rules);
  return granted && { ...granted, reason: `${granted.reason} (allowed-tools of the running skill ${skill.name}, until the turn ends)` };
}

/** The tool's own `ask` outside bypass mode: dontAsk denies it, auto may classify it. */
function askInMode(scope: Scope, d: PermissionDecision): PermissionDecision {
  const mode = scope.request.permissionContext.mode;
  if (mode === "dontAsk") return { ...d, behavior: "deny", reason: `${d.reason} (dontAsk mode denies whatever would ask)` };
  if (mode === "auto") return { ...d, classifiable: true };
  return d;
}

function safeCall(fn: () => boolean): boolean {
  try {
    return fn() === true;
  } catch {
    return true;
  }
}

/**
 * In auto mode, allow rules that approve arbitrary code execution are set aside (`Bash`,
 * `Bash(*)`, `Bash(python *)`, `Bash(npm run *)`, `Agent`): the classifier reviews those calls.
 */
const BROAD_EXEC = /^(\*|(python3?|node|ruby|perl|php|bash|sh|zsh|deno|bun|npx|bunx|pnpx|uvx|uv run|(npm|pnpm|yarn|bun) run|eval|exec|xargs|env|sudo)( ?\*)?)$/;
export function isBroadExecRule(rule: PermissionRule): boolean {
  if (rule.toolName === "Agent" || rule.toolName === "Task") return rule.ruleContent === undefined;
  if (rule.toolName !== "Bash") return false;
  if (rule.ruleContent === undefined) return true;
  return BROAD_EXEC.test(normaliseBashSpec(rule.ruleContent));
}

const autoCache = new WeakMap<readonly PermissionRule[], PermissionRule[]>();
function autoModeAllowRules(rules: readonly PermissionRule[]): PermissionRule[] {
  let out = autoCache.get(rules);
  if (!out) {
    out = allowRules(rules).filter((r) => !isBroadExecRule(r));
    autoCache.set(rules, out);
  }
  return out;
}

const allowCache = new WeakMap<readonly PermissionRule[], PermissionRule[]>();
function allowRules(rules: readonly PermissionRule[]): PermissionRule[] {
  let out = allowCache.get(rules);
  if (!out) {
    out = rules.filter((r) => r.behavior === "allow");
    allowCache.set(rules, out);
  }
  return out;
}

/**
 * Checks no allow rule or hook can pre-approve, and no mode either (bypassPermissions included):
 * a command the parser could not fully model, writes to protected paths or to paths not known
 * before the command runs, removal of critical paths, a command name not known before it runs
 * while deny or ask rules restrict Bash, reads that may reach what a Read deny or ask rule names.
 */
function safetyCheck(scope: Scope): string | null {
  const facts = scope.shell;
  if (facts && !facts.complete) {
    const why = facts.reasons.length > 0 ? `: ${facts.reasons.join("; ")}` : "";
    return `The command could not be fully analysed${why}. A human must approve it`;
  }
  for (const t of scope.writes) {
    for (const f of t.forms) {
      const reason = protectedPathReason(f.lexical);
      if (reason) return `Writing ${t.written} needs approval: ${reason}`;
      const throughLink = protectedPathReason(f.canonical);
      if (throughLink) return `Writing ${t.written} needs approval: it resolves to ${f.canonical}, and ${throughLink}`;
    }
    if (t.unknown && protectedPathReason(t.written)) return `Writing ${t.written} needs approval: ${protectedPathReason(t.written)}`;
  }
  const madeGitDir = gitDirCreatedBy(scope.writes.flatMap((t) => t.forms.map((f) => f.canonical)));
  if (madeGitDir) return `Writing these paths needs approval: ${madeGitDir}`;
  if (!facts) return null;
  const ctx = {
    cwd: scope.request.cwd,
    projectDir: scope.request.projectDir,
    home: scope.home,
    additionalDirectories: scope.dirs.lexical.slice(1),
    bases: scope.bases,
    cdUnknown: scope.cdUnknown,
    canonicalize: scope.canonicalize,
  };
  for (const sub of facts.subcommands) {
    const critical = criticalRemoval(sub, ctx);
    if (critical) return `Removing a critical path needs approval (${critical})`;
    const unseen = opaqueSafetyReason(sub, ctx);
    if (unseen) return unseen;
    const otherGitDir = gitDirRedirection(sub, ctx);
    if (otherGitDir) return otherGitDir;
  }
  const unknownWrite = scope.writes.find((t) => t.unknown && !removedGlobOnly(scope, t.written));
  if (unknownWrite) {
    return `Writing ${unknownWrite.written} needs approval: its path is not known before the command runs, so it may be a protected or critical path`;
  }
  const rules = scope.request.permissionContext.rules;
  const dynamicName = facts.subcommands.find((sub) => !commandFacts(sub).programKnown);
  if (dynamicName && rules.some((r) => r.behavior !== "allow" && (r.toolName === "Bash" || r.toolName === scope.request.tool.name || r.toolName === "Read" || r.toolName === "Edit"))) {
    const word = commandFacts(dynamicName).programWord;
    return `The command name ${word} is not known before the command runs, and deny or ask rules restrict what may run. A human must approve it`;
  }
  return treeWritesReachingRestrictedPaths(scope, restrictiveEditRules(rules)) ?? readsReachingRestrictedPaths(scope, restrictiveReadRules(rules));
}

/**
 * Variables and git options that point git at another git directory: git reads that directory's
 * config (hooks, core.fsmonitor, aliases…, which run programs) and writes its files there, so the
 * directory acts as a git dir wherever it is. Asked in every mode, like writes into `.git/`.
 */
const GIT_DIR_VARIABLES = new Set(["GIT_DIR", "GIT_COMMON_DIR", "GIT_WORK_TREE", "GIT_OBJECT_DIRECTORY", "GIT_INDEX_FILE", "GIT_CONFIG", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"]);
function gitDirRedirection(sub: ShellSubcommand, ctx: { cwd: string; bases: readonly string[]; cdUnknown: boolean; canonicalize: Canonicalize }): string | null {
  const variable = Object.keys(sub.env).find((name) => GIT_DIR_VARIABLES.has(name));
  if (variable !== undefined) {
    return `${variable}=${sub.env[variable]} points git at another git directory, whose config and hooks can run programs and where git writes: a human must approve it`;
  }
  const facts = commandFacts(sub);
  const option = facts.gitDirOption;
  if (option === null) return null;
  // --git-dir=<this repository's git dir> and --work-tree=<a folder of it> are git in this repository.
  if (!ctx.cdUnknown && gitOptionsStayInRepository(facts.canonicalArgv, ctx.cwd, ctx.bases, ctx.canonicalize)) return null;
  return `git ${option} points git at another git directory, whose config and hooks can run programs and where git writes: a human must approve it`;
}

/**
 * A command the analysis does not model may run any of its later words as a command, or write
 * any path it is given: each suffix is judged as a removal, each word as a possibly written path.
 */
function opaqueSafetyReason(sub: ShellSubcommand, ctx: CriticalContext): string | null {
  const facts = commandFacts(sub);
  if (!facts.unknown) return null;
  const name = facts.writtenName ?? "";
  for (const run of facts.executions) {
    if (run.kind !== "may") continue;
    const critical = run.deletes && criticalDeletion(run.deletes, ctx);
    if (critical) return `${name} is not modelled and may run \`${run.text}\`: removing a critical path needs approval (${critical})`;
    const word = run.mayWrite ?? "";
    const prot = word.length > 0 ? protectedPathReason(word) : null;
    if (prot) return `${name} is not modelled and may write ${word}, which needs approval: ${prot}`;
  }
  return null;
}

/**
 * Commands that write a whole tree into a directory (`git checkout .`, `patch -p1`, `unzip`,
 * `tar -x -C dir`, `cp -r`, `rsync`, `mv`) against `Edit(…)` deny and ask rules and protected
 * paths below that directory: the names they write are not on the command line.
 */
function treeWritesReachingRestrictedPaths(scope: Scope, rules: readonly PermissionRule[]): string | null {
  const plans = new Map<ShellSubcommand, TreePlan>();
  for (const t of scope.treeWrites) {
    if (t.unknown) continue; // an unknown write target already needs approval
    const rule = rules.length > 0 && t.kind !== "place" ? ruleReachingBelow(rules, scope, t.forms) : undefined;
    if (rule) return `Writing below ${t.written} needs approval: it may change paths that rule ${rule.raw} restricts`;
    const prot = protectedBelow(t.kind, t.forms, [...scope.dirs.lexical, ...scope.dirs.canonical]);
    if (prot) return `Writing below ${t.written} needs approval: it may write protected paths there, ${prot}`;
    if (t.kind === "git") continue;
    let plan = plans.get(t.sub);
    if (!plan) plans.set(t.sub, (plan = treePlan(t.sub, t.kind, (word) => locateWord(scope, word))));
    const why = treeContentsReason(plan, t.forms, scope.canonicalize);
    if (why) return `Writing below ${t.written} needs approval: ${why}`;
  }
  return null;
}


/**
 * A shell command's reads against `Read(…)` deny and ask rules, beyond the paths it names:
 * a recursive reader over a directory that holds a restricted path, a glob that may expand to
 * one, a path not known before the command runs.
 */
function readsReachingRestrictedPaths(scope: Scope, rules: readonly PermissionRule[]): string | null {
  if (rules.length === 0) return null;
  for (const t of scope.recursiveReads) {
    if (t.unknown && !isGlobOnly(t.written)) return `Reading below ${t.written} needs approval: its path is not known before the command runs, and Read rules restrict some paths`;
    const rule = ruleReachingBelow(rules, scope, t.forms);
    if (rule && !readerSkipsRestricted(scope, t, rules)) return `Reading everything below ${t.written} needs approval: it may include paths that rule ${rule.raw} restricts`;
  }
  const dotglob = scope.shell !== undefined && callTextFacts(scope.shell).mentionsDotglob;
  for (const t of scope.reads) {
    if (!t.unknown) continue;
    if (!isGlobOnly(t.written)) return `Reading ${t.written} needs approval: its path is not known before the command runs, and Read rules restrict some paths`;
    // A glob reads what it expands to: paths below its fixed directory whose first segment it matches.
    const slashAt = t.written.lastIndexOf("/");
    const dirWord = slashAt < 0 ? "." : t.written.slice(0, slashAt) || "/";
    const last = t.written.slice(slashAt + 1);
    if (hasGlob(dirWord)) {
      const rule = rules[0]!;
      return `Reading ${t.written} needs approval: a glob over several directories may reach paths that rule ${rule.raw} restricts`;
    }
    const child = globSegmentMatcher(last, { dot: dotglob });
    const forms = scope.bases.map((b) => pathForms(dirWord, b, scope.home, scope.canonicalize));
    const rule = ruleReachingBelow(rules, scope, forms, (segment) => child(segment));
    if (rule) return `Reading ${t.written} needs approval: the glob may match paths that rule ${rule.raw} restricts`;
    const link = symlinkMatching(forms, child);
    if (link) return `Reading ${t.written} needs approval: the glob matches the symlink ${link}, and Read rules restrict some paths`;
  }
  return null;
}

/**
 * A write target that is a glob in its last segment only, which only rm/rmdir/unlink use (they
 * unlink a symlink, never follow it) and which cannot expand to a protected name: its
 * directory is known and checked like any path, the critical-removal check judges the glob.
 */
function removedGlobOnly(scope: Scope, word: string): boolean {
  if (!isGlobOnly(word) || scope.cdUnknown) return false;
  const slashAt = word.lastIndexOf("/");
  if (hasGlob(word.slice(0, Math.max(slashAt, 0))) || globMayNameProtected(word.slice(slashAt + 1))) return false;
  let used = false;
  for (const sub of scope.shell?.subcommands ?? []) {
    if (sub.redirects.some((r) => r.target === word)) return false;
    if (!commandFacts(sub).wordsWritten.includes(word)) continue;
    if (!UNLINKERS.has(commandFacts(sub).program)) return false;
    used = true;
  }
  return used;
}

/** A symlink in one of these directories whose name the glob matches (it may lead anywhere), or null. */
function symlinkMatching(forms: readonly PathForms[], match: (name: string) => boolean): string | null {
  for (const dir of new Set(forms.map((f) => f.canonical))) {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue; // no such directory: the glob matches nothing there
    }
    for (const e of entries) if (e.isSymbolicLink() && match(e.name)) return posix.join(dir, e.name);
  }
  return null;
}

/**
 * Whether the readers of a recursive root skip every path the rules may match there: hidden
 * files for rg/tree/ls -R, what the ignore files ignore for rg, what git does not hold for git
 * diff/show/log -p/grep. What git lists and the directories below a root come from the call's
 * subject when the tool gathered them before the decision (then nothing runs here; a fact it
 * lacks is unsure), else they are gathered here.
 */
function readerSkipsRestricted(scope: Scope, t: Target, rules: readonly PermissionRule[]): boolean {
  const subject = scope.request.subject;
  const evidence = subject?.kind === "shell" ? subject.narrowing : undefined;
  const { projectDir } = scope.request;
  if (t.limit === "names" || t.limit === "visible-names") {
    if (t.limit === "visible-names" && readerSkipsRestricted(scope, { ...t, limit: "visible" }, rules)) return true;
    return t.forms.every((f) => {
      if (!evidence) return listsNoRestrictedDirectory(rules, f, projectDir, scope.home);
      return listsNoRestrictedDirectory(rules, f, projectDir, scope.home, evidence.directories[f.canonical] ?? null);
    });
  }
  if (t.limit === "visible" || t.limit === "visible-unignored") {
    const visible = (segment: string): boolean => !segment.startsWith(".");
    if (!ruleReachingBelow(rules, scope, t.forms, visible) && t.forms.every((f) => !ignoreFilesMayUnhide(f.canonical, scope.home))) return true;
    if (t.limit === "visible") return false;
  }
  const view = t.limit ? gitViewOf(t.limit) : undefined;
  if (!view || (view === "unignored" && process.env.RIPGREP_CONFIG_PATH)) return false;
  return t.forms.every((f) => {
    const listing = evidence ? (evidence.git[evidenceKey(view, f.canonical)] ?? undefined) : gitPathsSync(f.canonical, view);
    return listing !== undefined && gitListingAvoids(listing, rules, projectDir, scope.home);
  });
}

/** A word whose only unknown part is a glob (no expansion, brace or `~user`). */
function isGlobOnly(word: string): boolean {
  return hasGlob(word) && !isDynamicWord(word) && !hasBrace(word);
}

/**
 * Allow rules. A shell command is allowed only if every subcommand (nested ones included)
 * matches an allow rule and every file it reads or writes outside the working directories is
 * covered by a `Read`/`Edit` rule; a file call only if every path is covered (inside the working
 * dirs a bare `Edit`/`Read` rule covers it).
 */
function allowByRules(scope: Scope, rules: readonly PermissionRule[]): PermissionDecision | null {
  if (rules.length === 0) return null;
  const { request } = scope;
  const used: PermissionRule[] = [];
  const coverOutside = (): boolean => {
    const reads = [...outsideTargets(scope, scope.reads), ...outsideTargets(scope, scope.cds)];
    for (const t of reads) {
      const r = allowRuleForTarget(rules, scope, t, "read");
      if (!r) return false;
      used.push(r);
    }
    for (const t of outsideTargets(scope, scope.writes)) {
      const r = allowRuleForTarget(rules, scope, t, "write");
      if (!r) return false;
      used.push(r);
    }
    return true;
  };
  const subject = request.subject;
  if (subject?.kind === "shell") {
    const subs = subject.facts.subcommands;
    if (subs.length === 0) return null;
    // A part no rule allows may still be read-only on its own (`cat` in the reference agent's
    // `git commit -m "$(cat <<'EOF' … EOF)"` under `Bash(git commit:*)`): it passes when every
    // reason the whole command is not read-only is an objection to a part a rule allows.
    const unmatched: ShellSubcommand[] = [];
    const excused = new Set<string>();
    for (const sub of subs) {
      const r = allowRuleForSubcommand(rules, sub, request.tool.name);
      if (!r) unmatched.push(sub);
      else {
        used.push(r);
        if (typeof sub.readOnly === "object") excused.add(sub.readOnly.objection);
      }
    }
    if (unmatched.length > 0) {
      const facts = subject.facts;
      if (used.length === 0 || !facts.complete || unmatched.some((s) => s.readOnly !== true || s.opaque === true)) return null;
      if (!facts.reasons.every((r) => excused.has(r))) return null;
    }
    if (!coverOutside()) return null;
  } else if (subject?.kind === "file") {
    const whole = allowRuleForCall(rules, scope);
    const access = subject.access;
    const targets = access === "write" ? scope.writes : scope.reads;
    if (targets.length === 0) return null;
    for (const t of targets) {
      const r = allowRuleForTarget(rules, scope, t, access);
      if (r) used.push(r);
      else if (whole && whole.ruleContent === undefined && outsideTargets(scope, [t]).length === 0) used.push(whole);
      else return null;
    }
  } else {
    const r = allowRuleForCall(rules, scope);
    if (!r) return null;
    used.push(r);
  }
  const distinct = [...new Set(used)];
  const first = distinct[0]!;
  const raw = distinct.map((r) => r.raw).join(", ");
  const sources = [...new Set(distinct.map((r) => r.source))].join(", ");
  return { behavior: "allow", reason: `Allowed by rule${distinct.length > 1 ? "s" : ""} ${raw}`, rule: distinct.length > 1 ? raw : first.raw, source: sources };
}
