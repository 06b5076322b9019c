export const WEB_FETCH_TOOL_NAME = "WebFetch";

export const WEB_FETCH_DESCRIPTION = [
  "Fetches a web page and answers a question about it, or returns the page as Markdown.",
  "",
  "- `url`: a fully formed http(s) URL. http is upgraded to https. Only public sites: local and private addresses are refused.",
  "- `prompt`: what you want from the page (\"list the breaking changes in 5.0\"). When the host has a model for it,",
  "  the answer to the prompt comes back; otherwise the page itself comes back as Markdown, a page of text at a time:",
  "  continue a long page with `offset`.",
  "- A redirect to another host is not followed: the result names the new URL; fetch it with a new call if you trust it.",
  "- Pages are cached for 15 minutes, so fetching the same URL again is cheap.",
  "- For GitHub and other sites with a command-line client, prefer that client through Bash when it is available.",
].join("\n");

export const URL_DESCRIPTION = "The URL to fetch";
export const PROMPT_DESCRIPTION = "What to extract from the page, or the question to answer about it";
export const OFFSET_DESCRIPTION = "Character position to continue reading a long page from (given by the previous result)";

export function crossHostRedirectMessage(from: string, to: string, status: number, prompt: string): string {
  return [
    `REDIRECT DETECTED: The URL redirects to a different host.`,
    ``,
    `Original URL: ${from}`,
    `Redirect URL: ${to}`,
    `Status: ${status}`,
    ``,
    `The redirect was not followed. If you trust the new host, fetch it with WebFetch again:`,
    `- url: "${to}"`,
    `- prompt: "${prompt}"`,
  ].join("\n");
}
