export const TODO_WRITE_TOOL_NAME = "TodoWrite";

export const TODO_WRITE_DESCRIPTION = [
  "Keeps a structured task list for the current piece of work, so progress is visible and nothing is forgotten.",
  "",
  "When to use it:",
  "- The work has three or more distinct steps, or the user gave several things to do.",
  "- New requirements arrive while you work: add them as items.",
  "- Skip it for a single trivial step or a purely conversational answer.",
  "",
  "How to use it:",
  "- Send the whole list every time; it replaces the previous one.",
  "- Each item has `content` (imperative: \"Run the tests\"), `activeForm` (present continuous: \"Running the tests\") and `status`.",
  "- Keep exactly one item `in_progress` while you work; mark it `completed` as soon as it is done, not in batches.",
  "- Mark an item completed only when it is fully done (tests pass, nothing left half-way). If you are blocked, keep it in_progress and add an item for the blocker.",
  "- Remove items that no longer apply.",
].join("\n");

export const TODO_WRITE_RESULT =
  "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable";
