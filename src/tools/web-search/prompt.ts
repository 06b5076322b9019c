export const WEB_SEARCH_TOOL_NAME = "WebSearch";

export const WEB_SEARCH_DESCRIPTION = [
  "Searches the web and returns result titles and links with a short summary, for information newer than your training",
  "or that you need to check.",
  "",
  "- Use `allowed_domains` to search only some sites, or `blocked_domains` to leave some out (not both in one call).",
  "- Cite what you use: after answering from the results, list the sources as Markdown links.",
  "- Put the current year in queries about recent events or current versions.",
].join("\n");

export const WEB_SEARCH_REMINDER = "REMINDER: You MUST include the sources above in your response to the user using markdown hyperlinks.";
