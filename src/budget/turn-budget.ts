import type { ToolResultBlock } from "../tool/types.js";
import { persistOversizedResult, resultTextLength } from "./persist.js";

export const DEFAULT_TURN_BUDGET_CHARS = 200_000;
/** Results smaller than this are never worth persisting: the replacement is about this large. */
const MIN_PERSIST_CHARS = 4_000;

/**
 * The aggregate budget of one turn: each tool keeps under its own `maxResultSizeChars`, but
 * many results together could still flood the context. Results are admitted in tool_use
 * order; one that would take the turn over the budget is persisted to disk and replaced by
 * its preview.
 */
export class TurnBudget {
  private used = 0;

  constructor(
    private readonly sessionDir: string,
    readonly limitChars: number = DEFAULT_TURN_BUDGET_CHARS,
  ) {}

  async admit(block: ToolResultBlock): Promise<ToolResultBlock> {
    return this.admitAtOnce(block) ?? (await this.persist(block));
  }

  /**
   * The block itself when it fits (counted as admitted), or undefined when it must be persisted
   * (then `admit` it): a turn's hot path without a promise per result.
   */
  admitAtOnce(block: ToolResultBlock): ToolResultBlock | undefined {
    const size = resultTextLength(block.content);
    if (this.used + size > this.limitChars && size >= MIN_PERSIST_CHARS && !block.is_error && !isPersisted(block)) return undefined;
    this.used += size;
    return block;
  }

  private async persist(block: ToolResultBlock): Promise<ToolResultBlock> {
    const replaced = await persistOversizedResult(block, this.sessionDir);
    this.used += resultTextLength(replaced.content);
    return replaced;
  }
}

function isPersisted(block: ToolResultBlock): boolean {
  const text = typeof block.content === "string" ? block.content : block.content[0]?.type === "text" ? block.content[0].text : "";
  return text.startsWith("<persisted-output>");
}
