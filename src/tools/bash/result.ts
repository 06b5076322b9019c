import { persistedOutputText } from "../../budget/persist.js";
// The Bash tool's output (what hooks see as tool_response) and the text the model reads.
import type { TextBlock, ToolResultBlock } from "../../tool/types.js";
import { imageBlock, type ImageOutput } from "./image.js";

export interface BashOutput {
  /**
   * What the command wrote: its stdout and stderr are one file, so this is both, in the order it
   * wrote them (as on a terminal), at most the inline limit (head and tail around a marker past it).
   */
  stdout: string;
  /** Always empty: stderr is part of `stdout` (kept for hooks written against the reference agent's shape). */
  stderr: string;
  /** The same text: what the model reads. */
  output: string;
  /** The exit status (128+N when a signal ended it); null when the command did not start or runs in the background. */
  exitCode: number | null;
  /** The call was aborted before the command finished. */
  interrupted: boolean;
  /** The timeout expired and the command was stopped. */
  timedOut: boolean;
  /** How long it was allowed to run (ms). */
  timeoutMs: number;
  /** The file with every byte of output (absent when there was none). */
  outputPath?: string;
  outputBytes: number;
  /** The inline text leaves part of the output out. */
  truncated: boolean;
  /** When truncated: the start of the output, for the persisted-output preview. */
  preview?: string;
  /** stdout was an image. */
  isImage?: boolean;
  image?: ImageOutput;
  /** What a non-zero, non-error exit status means (`No matches found`). */
  returnCodeInterpretation?: string;
  /** Whether the model is told this failed. */
  isError: boolean;
  /** Set when it runs in the background. */
  backgroundTaskId?: string;
  /** Set when the timeout (this many ms) moved it to the background instead of stopping it. */
  timedOutAfterMs?: number;
  /** Where the next command starts. */
  cwd: string;
  /** Ran inside the OS sandbox. */
  sandboxed: boolean;
  /** Lines for the model after the output: cwd reset, stopped processes, ended background tasks. */
  notices: string[];
  /** Why it could not run at all (the shell did not start). */
  startError?: string;
  durationMs: number;
}

/** stdout-style clean-up: no leading blank lines, no trailing whitespace. */
export function tidy(text: string): string {
  return text.replace(/^(?:[ \t]*\r?\n)+/, "").trimEnd();
}

/** `1s`, `120s`, `1.5s`: a timeout as the reference agent writes it. */
function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))}s`;
}

/** The text of the result, without the image. */
export function bashResultText(data: BashOutput): string {
  const parts: string[] = [];
  if (data.startError !== undefined) {
    parts.push(data.startError);
  } else if (data.backgroundTaskId !== undefined && data.timedOutAfterMs !== undefined) {
    // The reference agent's words for a command its timeout moved to the background.
    const body = tidy(data.output);
    if (body) parts.push(body);
    parts.push(
      `Command did not complete within its ${seconds(data.timedOutAfterMs)} timeout and was moved to the background (ID: ${data.backgroundTaskId}). ` +
        `Output is being written to: ${data.outputPath}. You will be notified when it completes. ` +
        `If it is still running after 10m in the background, it will be stopped and you will be notified. ` +
        `It is running now: do not start a second copy while it runs. If it is no longer needed, stop it with TaskStop. ` +
        (body
          ? ""
          : "No output had been read from it when it was moved. A program that buffers its output, or a pipe into one such as tail, can keep the output file empty until the command finishes. ") +
        `To check interim output, use Read on that file path.`,
    );
  } else if (data.backgroundTaskId !== undefined) {
    parts.push(
      `Command running in background with ID: ${data.backgroundTaskId}. Output is being written to: ${data.outputPath}. ` +
        `You will be notified when it completes. To check interim output, use Read on that file path.`,
    );
  } else {
    // Output over the inline limit: the reference's persisted-output block, pointing at the file
    // that already holds all of it.
    const whole = tidy(data.output);
    const body = data.isImage ? "" : data.truncated && data.outputPath ? persistedOutputText(data.outputBytes ?? whole.length, data.outputPath, tidy(data.preview ?? whole)) : whole;
    if (data.timedOut) {
      // The reference agent's text for a command its timeout stopped (one whose first word is sleep).
      parts.push(`Exit code ${data.exitCode ?? 143}${body ? `\n${body}` : ""}\nCommand timed out after ${seconds(data.timeoutMs)}`);
    } else if (data.interrupted) {
      if (body) parts.push(body);
      parts.push("<error>Command was aborted before completion</error>");
    } else if (data.isError) {
      parts.push(`Exit code ${data.exitCode ?? "unknown"}${body ? `\n${body}` : ""}`);
    } else if (body) {
      parts.push(body);
    } else if (!data.isImage) {
      parts.push("(Bash completed with no output)");
    }
    if (!data.isError && data.returnCodeInterpretation) parts.push(`(exit code ${data.exitCode}: ${data.returnCodeInterpretation})`);
  }
  parts.push(...data.notices);
  return parts.join("\n");
}

export function bashResultBlock(data: BashOutput, toolUseId: string): ToolResultBlock {
  const text = bashResultText(data);
  const isError = data.isError || data.interrupted || data.timedOut || data.startError !== undefined;
  const block: ToolResultBlock = { type: "tool_result", tool_use_id: toolUseId, content: text };
  if (data.isImage && data.image) {
    const content: Array<TextBlock | ReturnType<typeof imageBlock>> = [imageBlock(data.image)];
    if (text) content.push({ type: "text", text });
    block.content = content;
  }
  if (isError) block.is_error = true;
  return block;
}
