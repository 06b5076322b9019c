export const ASK_USER_QUESTION_TOOL_NAME = "AskUserQuestion";

export const ASK_USER_QUESTION_DESCRIPTION = [
  "Asks the user one to four multiple-choice questions and waits for the answers.",
  "",
  "Use it when a choice is the user's to make and guessing would waste work: an ambiguous requirement, a preference",
  "between reasonable options, a decision with trade-offs. Do not use it for things you can find out yourself.",
  "",
  "- Each question has a short `header` (a few words), 2 to 4 `options` with a `label` and a `description` of what choosing it means.",
  "- Set `multiSelect` when more than one option may apply.",
  "- The user can always answer in their own words instead of picking an option.",
  "- If you recommend an option, put it first and add \"(Recommended)\" to its label.",
].join("\n");
