/**
 * A refusal a tool decides on before it changes anything (the input does not fit the file: not
 * read yet, string not found, wrong encoding). The model reads it wrapped in <tool_use_error>,
 * as it reads a failed validation; anything else a tool throws is a failure while it ran and
 * reaches the model as the bare message, as the reference agent sends both.
 */
export class ToolUseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ToolUseError";
  }
}
