import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ConversationMessage, ToolResultBlock } from "../tool/types.js";
import { formatSize, resultFileName, resultTextLength } from "./persist.js";

export const DEFAULT_CONVERSATION_BUDGET_CHARS = 400_000;

export interface ConversationBudgetOptions {
  /** Where full results are kept (`<sessionDir>/tool-results/<id>.txt`). */
  sessionDir: string;
  /** Characters of tool results the history may hold before old ones are compacted (default 400,000). */
  budgetChars?: number;
  /**
   * Once over budget, compact down to this share of it (default 0.6): compaction changes the
   * history from the oldest compacted result on, so doing it in large steps, seldom, keeps the
   * prompt-cache prefix valid for many rounds in between.
   */
  targetRatio?: number;
  /** Results in the last N user messages are never compacted (default 2): the model is working with them. */
  keepRecentMessages?: number;
  /** Results smaller than this are left alone (default 2,000): a placeholder would save little. */
  minResultChars?: number;
  /** Called before a compaction; returning false skips it (a PreCompact hook that blocks). */
  beforeCompact?: (plan: { results: number; chars: number }) => Promise<boolean> | boolean;
}

export interface CompactionReport {
  /** Results replaced by a placeholder this time. */
  compacted: number;
  /** Characters of tool results in the history before and after. */
  charsBefore: number;
  charsAfter: number;
}

interface Candidate {
  message: ConversationMessage;
  index: number;
  messageNo: number;
  size: number;
}

export const COMPACTED_MARKER = "[Old tool result content cleared";

/**
 * The budget of the seeds over a whole conversation: when the tool results in the history add
 * up to more than the budget, the oldest large ones are replaced (microcompact) by a short
 * placeholder naming the file that keeps the full result. The history is read incrementally:
 * each call looks only at the messages added since the last, so a round costs the same at
 * round 500 as at round 5.
 */
export class ConversationBudget {
  readonly budgetChars: number;
  private readonly targetChars: number;
  private readonly keepRecent: number;
  private readonly minChars: number;
  private total = 0;
  private seen = 0;
  private userMessages = 0;
  private readonly candidates: Candidate[] = [];
  private head = 0;

  constructor(private readonly options: ConversationBudgetOptions) {
    this.budgetChars = options.budgetChars ?? DEFAULT_CONVERSATION_BUDGET_CHARS;
    this.targetChars = Math.floor(this.budgetChars * (options.targetRatio ?? 0.6));
    this.keepRecent = options.keepRecentMessages ?? 2;
    this.minChars = options.minResultChars ?? 2_000;
  }

  /** Characters of tool results the history holds now (as far as it has been seen). */
  get usedChars(): number {
    return this.total;
  }

  /**
   * Looks at the messages added since the last call and, when the history is over budget,
   * compacts the oldest large results in place. `messages` must be the same growing array
   * each time (messages are appended, never removed).
   */
  async apply(messages: ConversationMessage[]): Promise<CompactionReport> {
    if (messages.length < this.seen) this.reset();
    for (; this.seen < messages.length; this.seen++) this.track(messages[this.seen]!);
    const charsBefore = this.total;
    if (this.total <= this.budgetChars) return { compacted: 0, charsBefore, charsAfter: this.total };

    const protectedFrom = this.userMessages - this.keepRecent;
    const chosen: Candidate[] = [];
    let after = this.total;
    for (let i = this.head; i < this.candidates.length && after > this.targetChars; i++) {
      const c = this.candidates[i]!;
      if (c.messageNo >= protectedFrom) break;
      chosen.push(c);
      after -= c.size - placeholderSize(c.size);
    }
    if (chosen.length === 0) return { compacted: 0, charsBefore, charsAfter: this.total };
    const go = (await this.options.beforeCompact?.({ results: chosen.length, chars: charsBefore - after })) ?? true;
    if (!go) return { compacted: 0, charsBefore, charsAfter: this.total };

    const dir = join(this.options.sessionDir, "tool-results");
    await mkdir(dir, { recursive: true });
    for (const c of chosen) {
      const content = c.message.content as ToolResultBlock[];
      const block = content[c.index]!;
      const path = join(dir, resultFileName(block.tool_use_id));
      const existing = persistedPath(block);
      if (existing === null) await writeFile(path, textOf(block), "utf8");
      const replaced: ToolResultBlock = { ...block, content: placeholder(c.size, existing ?? path) };
      content[c.index] = replaced;
      this.total -= c.size - resultTextLength(replaced.content);
    }
    this.head += chosen.length;
    return { compacted: chosen.length, charsBefore, charsAfter: this.total };
  }

  private track(message: ConversationMessage): void {
    if (message.role !== "user") return;
    const messageNo = this.userMessages++;
    if (typeof message.content === "string") return;
    message.content.forEach((block, index) => {
      if (block.type !== "tool_result") return;
      const size = resultTextLength(block.content);
      this.total += size;
      if (size >= this.minChars && !block.is_error && !isCompacted(block)) this.candidates.push({ message, index, messageNo, size });
    });
  }

  private reset(): void {
    this.total = 0;
    this.seen = 0;
    this.userMessages = 0;
    this.candidates.length = 0;
    this.head = 0;
  }
}

function placeholder(size: number, path: string): string {
  return `${COMPACTED_MARKER}: ${formatSize(size)}. The full result is kept in ${path}; Read it (with offset and limit) if you need it again.]`;
}

function placeholderSize(size: number): number {
  return placeholder(size, "x".repeat(80)).length;
}

function textOf(block: ToolResultBlock): string {
  return typeof block.content === "string" ? block.content : block.content.map((b) => (b.type === "text" ? b.text : "")).join("\n");
}

function isCompacted(block: ToolResultBlock): boolean {
  return textOf(block).startsWith(COMPACTED_MARKER);
}

/** A result the pipeline already persisted names its file: reuse it instead of writing the preview. */
function persistedPath(block: ToolResultBlock): string | null {
  const text = textOf(block);
  if (!text.startsWith("<persisted-output>")) return null;
  return /Full output saved to: (.+)\n/.exec(text)?.[1] ?? null;
}
