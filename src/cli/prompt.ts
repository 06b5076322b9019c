import type { Approver } from "../permissions/types.js";
import type { CliIO } from "./io.js";

interface Question {
  question: string;
  header: string;
  options: Array<{ label: string; description: string }>;
  multiSelect: boolean;
}

/** AskUserQuestion: each question with numbered options; the answer is a number, several (multiSelect), or free text. */
async function askQuestions(io: Required<Pick<CliIO, "question">>, input: Record<string, unknown>): Promise<Record<string, string> | undefined> {
  const questions = (input.questions ?? []) as Question[];
  const answers: Record<string, string> = {};
  for (const q of questions) {
    const menu = q.options.map((o, i) => `  ${i + 1}. ${o.label} — ${o.description}`).join("\n");
    const how = q.multiSelect ? "numbers separated by commas, or your own answer" : "a number, or your own answer";
    const raw = (await io.question(`\n[${q.header}] ${q.question}\n${menu}\nAnswer (${how}; empty to dismiss): `)).trim();
    if (raw === "") return undefined;
    const picked = raw.split(",").map((p) => Number.parseInt(p.trim(), 10));
    const valid = picked.every((n) => Number.isInteger(n) && n >= 1 && n <= q.options.length) && (q.multiSelect || picked.length === 1);
    answers[q.question] = valid ? picked.map((n) => q.options[n - 1]!.label).join(", ") : raw;
  }
  return answers;
}

/** Asks on the terminal: y (once), n (deny), a (always, this session), l (always, .armature/settings.local.json). */
export function terminalApprover(io: CliIO): Approver {
  return async (request) => {
    if (!io.question) return { behavior: "deny", message: "No terminal to ask on." };
    if (request.tool.name === "AskUserQuestion") {
      const answers = await askQuestions({ question: io.question }, request.input);
      if (answers === undefined) return { behavior: "deny", message: "The user dismissed the question." };
      return { behavior: "allow", updatedInput: { ...request.input, answers } };
    }
    const summary = JSON.stringify(request.input).slice(0, 300);
    const rules = request.decision.suggestedRules ?? [];
    const always = rules.length > 0 ? ` / [a]lways (${rules.join(", ")}) / a[l]ways, saved locally` : " / [a]lways";
    for (;;) {
      const answer = (
        await io.question(`\n${request.tool.name} ${summary}\n${request.decision.reason}\nAllow? [y]es / [n]o${always}: `)
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
