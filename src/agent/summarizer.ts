import type { ModelProvider } from "../providers/model.js";
import type { WebFetchSummarizer } from "../tools/web-fetch/index.js";

const SYSTEM =
  "You answer a question about one web page for another model. Use only the page's content below. " +
  "Be concise and exact: quote code, commands and numbers as they appear. If the page does not answer, say so.";

/**
 * WebFetch's `prompt`, applied by a model through the provider layer (a small, fast one is
 * enough). The page is sent as data in the user message, the question after it.
 */
export function providerSummarizer(provider: ModelProvider, model: string, maxTokens = 2048): WebFetchSummarizer {
  return async ({ url, prompt, content, signal }) => {
    let text = "";
    for await (const event of provider.stream({
      model,
      system: SYSTEM,
      messages: [{ role: "user", content: `Page: ${url}\n\n<page>\n${content}\n</page>\n\nQuestion: ${prompt}` }],
      tools: [],
      maxTokens,
      signal,
    })) {
      if (event.type === "text_delta") text += event.text;
      if (event.type === "error") throw new Error(`the model that reads pages failed: ${event.message}`);
    }
    return text.trim();
  };
}
