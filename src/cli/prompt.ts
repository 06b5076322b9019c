import type { Approver } from "../permissions/types.js";
import type { CliIO } from "./io.js";
import { callLine } from "./terminal-view.js";

interface Question {
  question: string;
  header: string;
  options: Array<{ label: string; description: string }>;
  multiSelect: boolean;
}

/** AskUserQuestion: each question with numbered options; the answer is a number, several (multiSelect), or free text. */
async function askQuestions(io: Required<Pick<CliIO, "question">>, input: Record<string, unknown>, signal: AbortSignal): Promise<Record<string, string> | undefined> {
  const questions = (input.questions ?? []) as Question[];
  const answers: Record<string, string> = {};
  for (const q of questions) {
    const menu = q.options.map((o, i) => `  ${i + 1}. ${o.label} — ${o.description}`).join("\n");
    const how = q.multiSelect ? "numbers separated by commas, or your own answer" : "a number, or your own answer";
    const raw = (await io.question(`\n[${q.header}] ${q.question}\n${menu}\nAnswer (${how}; empty to dismiss): `, signal)).trim();
    if (raw === "") return undefined;
    const picked = raw.split(",").map((p) => Number.parseInt(p.trim(), 10));
    const valid = picked.every((n) => Number.isInteger(n) && n >= 1 && n <= q.options.length) && (q.multiSelect || picked.length === 1);
    answers[q.question] = valid ? picked.map((n) => q.options[n - 1]!.label).join(", ") : raw;
  }
  return answers;
}

/** What the person approves, beyond the call's line: a multi-line command in full, an edit's lines out and in. */
function approvalDetail(name: string, input: Record<string, unknown>): string {
  const lines = (text: unknown, mark: string): string[] => (typeof text === "string" ? text.split("\n").map((l) => `  ${mark} ${l}`) : []);
  let detail: string[] = [];
  if (name === "Bash" && typeof input.command === "string" && input.command.includes("\n")) detail = lines(input.command, "│");
  else if (name === "Edit") detail = [...lines(input.old_string, "-"), ...lines(input.new_string, "+")];
  else if (name === "Write") detail = lines(input.content, "+");
  if (detail.length > 20) detail = [...detail.slice(0, 20), `  … ${detail.length - 20} more lines`];
  return detail.map((l) => `${l.slice(0, 200)}\n`).join("");
}

/** Asks on the terminal: y (once), n (deny), a (always, this session), l (always, .armature/settings.local.json). */
export function terminalApprover(io: CliIO, cwd: string = process.cwd()): Approver {
  return async (request) => {
    if (!io.question) return { behavior: "deny", message: "No terminal to ask on." };
    if (request.tool.name === "AskUserQuestion") {
      const answers = await askQuestions({ question: io.question }, request.input, request.signal);
      if (answers === undefined) return { behavior: "deny", message: "The user dismissed the question." };
      return { behavior: "allow", updatedInput: { ...request.input, answers } };
    }
    const summary = `${callLine(request.tool.name, request.input, cwd)}\n${approvalDetail(request.tool.name, request.input)}`;
    const rules = request.decision.suggestedRules ?? [];
    const always = rules.length > 0 ? ` / [a]lways (${rules.join(", ")}) / a[l]ways, saved locally` : " / [a]lways";
    for (;;) {
      const answer = (
        await io.question(`\n${summary}${request.decision.reason}\nAllow? [y]es / [n]o${always}: `, request.signal)
      ).trim().toLowerCase();
      if (answer === "y" || answer === "yes") return { behavior: "allow" };
      if (answer === "a" || answer === "always") return { behavior: "allow", remember: "session" };
      if (rules.length > 0 && answer === "l") return { behavior: "allow", remember: "local" };
      if (answer === "n" || answer === "no" || answer === "") {
        return { behavior: "deny", message: "The user declined this call. Ask the user how to proceed instead of retrying it." };
      }
    }
  };
}
