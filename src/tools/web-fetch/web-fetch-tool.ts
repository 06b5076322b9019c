import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { buildTool } from "../../tool/build-tool.js";
import type { Tool } from "../../tool/types.js";
import { PageCache } from "./cache.js";
import type { NameResolver } from "./address-guard.js";
import { fetchUrl, type FetchLimits } from "./fetch.js";
import { htmlToMarkdown } from "./markdown.js";
import { crossHostRedirectMessage, OFFSET_DESCRIPTION, PROMPT_DESCRIPTION, URL_DESCRIPTION, WEB_FETCH_DESCRIPTION, WEB_FETCH_TOOL_NAME } from "./prompt.js";

/** Applies the model's prompt to a page (a small model through the provider layer). */
export type WebFetchSummarizer = (request: { url: string; prompt: string; content: string; signal: AbortSignal }) => Promise<string>;

export interface WebFetchOptions {
  /**
   * Hosts that may be fetched even though they are local or private (e.g. `127.0.0.1` for a
   * test server, an intranet docs host). Nothing else that is not a public address is fetched.
   */
  allowHosts?: readonly string[];
  /** Answers the prompt from the page; without one, the page's Markdown is returned a page at a time. */
  summarize?: WebFetchSummarizer;
  /** Body bytes kept at most (default 10 MiB). */
  maxBytes?: number;
  /** One fetch, redirects included (default 60 s). */
  timeoutMs?: number;
  /** How long a page is cached (default 15 minutes; 0 turns the cache off). */
  cacheTtlMs?: number;
  /** Characters of Markdown per result page when no summarizer is set (default 40,000). */
  pageChars?: number;
  /** Characters of Markdown given to the summarizer at most (default 100,000). */
  summarizeChars?: number;
  /** How host names are resolved (default: the system resolver). Every answer is checked at connect time. */
  resolveName?: NameResolver;
}

export const webFetchInputSchema = z.object({
  url: z.url().describe(URL_DESCRIPTION),
  prompt: z.string().describe(PROMPT_DESCRIPTION),
  offset: z.number().int().min(0).optional().describe(OFFSET_DESCRIPTION),
});

export type WebFetchInput = z.infer<typeof webFetchInputSchema>;

export interface WebFetchData {
  url: string;
  code: number;
  codeText: string;
  bytes: number;
  durationMs: number;
  result: string;
}

interface CachedPage {
  url: string;
  code: number;
  codeText: string;
  bytes: number;
  /** Markdown or text of the page, or a note about a binary file saved to disk. */
  text: string;
  /** The text is the page itself (paginated), not a note. */
  paginated: boolean;
  size: number;
}

const MAX_URL_LENGTH = 2000;
const TEXTUAL = /^(text\/|application\/(json|xml|xhtml\+xml|javascript|ld\+json|x-ndjson|rss\+xml|atom\+xml|yaml|toml)|image\/svg\+xml)/i;

function refuseUrl(input: WebFetchInput, allowHosts: ReadonlySet<string>): string | null {
  if (input.url.length > MAX_URL_LENGTH) return `The URL is ${input.url.length} characters long; WebFetch takes URLs of at most ${MAX_URL_LENGTH}.`;
  const url = new URL(input.url);
  if (url.protocol !== "http:" && url.protocol !== "https:") return `WebFetch fetches http(s) URLs only, not ${url.protocol}.`;
  if (url.username !== "" || url.password !== "") return "WebFetch does not send credentials: remove the user name and password from the URL.";
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (!allowHosts.has(host) && !host.includes(".") && !host.includes(":")) {
    return "WebFetch cannot fetch localhost or other hostnames without a dot. To reach a local server, use Bash with curl instead.";
  }
  return null;
}

export function createWebFetchTool(options: WebFetchOptions = {}): Tool<typeof webFetchInputSchema, WebFetchData> {
  const allowHosts = new Set((options.allowHosts ?? []).map((h) => h.replace(/^\[|\]$/g, "").toLowerCase()));
  const limits: FetchLimits = {
    maxBytes: options.maxBytes ?? 10 * 1024 * 1024,
    timeoutMs: options.timeoutMs ?? 60_000,
    maxRedirects: 10,
    allowHosts,
    ...(options.resolveName ? { resolveName: options.resolveName } : {}),
  };
  const pageChars = options.pageChars ?? 40_000;
  const summarizeChars = options.summarizeChars ?? 100_000;
  const cache = new PageCache<CachedPage>(options.cacheTtlMs ?? 15 * 60_000, 50 * 1024 * 1024);

  return buildTool({
    name: WEB_FETCH_TOOL_NAME,
    searchHint: "fetch a web page url documentation read website",
    inputSchema: webFetchInputSchema,
    description: WEB_FETCH_DESCRIPTION,
    shouldDefer: true,
    maxResultSizeChars: 100_000,
    // It changes nothing here, but what it sends leaves the machine: not read-only, so it asks
    // unless a WebFetch(domain:…) rule allows the host.
    isReadOnly: () => false,
    isConcurrencySafe: () => true,
    permissionSubject: (input) => ({ kind: "url", url: input.url }),
    validateInput(input) {
      const refusal = refuseUrl(input, allowHosts);
      return refusal === null ? { result: true } : { result: false, message: refusal, errorCode: "url_refused" };
    },

    async call(input, context) {
      const started = Date.now();
      const url = new URL(input.url);
      if (url.protocol === "http:" && !allowHosts.has(url.hostname.toLowerCase())) url.protocol = "https:";
      let page = cache.get(url.href);
      if (!page) {
        const outcome = await fetchUrl(url, limits, context.abortController.signal);
        if (outcome.kind === "redirect") {
          const text = crossHostRedirectMessage(outcome.from, outcome.to, outcome.status, input.prompt);
          return { data: { url: url.href, code: outcome.status, codeText: "Redirect", bytes: 0, durationMs: Date.now() - started, result: text } };
        }
        if (outcome.status >= 400) throw new Error(`Request failed with status code ${outcome.status}${outcome.statusText ? ` (${outcome.statusText})` : ""}: ${outcome.url}`);
        page = await toPage(outcome, context.session.dir);
        cache.set(url.href, page);
      }
      const result = await render(page, input, options.summarize, { pageChars, summarizeChars }, context.abortController.signal);
      return { data: { url: page.url, code: page.code, codeText: page.codeText, bytes: page.bytes, durationMs: Date.now() - started, result } };
    },

    mapToolResultToToolResultBlockParam(data, toolUseId) {
      return { type: "tool_result", tool_use_id: toolUseId, content: data.result };
    },
  });
}

async function toPage(
  outcome: Extract<Awaited<ReturnType<typeof fetchUrl>>, { kind: "page" }>,
  sessionDir: string,
): Promise<CachedPage> {
  const base = { url: outcome.url, code: outcome.status, codeText: outcome.statusText, bytes: outcome.body.length };
  const type = outcome.contentType.split(";")[0]!.trim().toLowerCase();
  const cut = outcome.truncated ? `\n\n[The page is larger than ${outcome.body.length} bytes; only the first ${outcome.body.length} bytes were read.]` : "";
  if (type === "" || TEXTUAL.test(type)) {
    const raw = outcome.body.toString("utf8");
    const isHtml = type === "text/html" || type === "application/xhtml+xml" || (type === "" && /^\s*<(!doctype html|html)/i.test(raw));
    const text = (isHtml ? await htmlToMarkdown(raw) : raw) + cut;
    return { ...base, text, paginated: true, size: text.length };
  }
  // A binary file (an image, a PDF, an archive): kept on disk for Read, not put into the context.
  const dir = join(sessionDir, "web-fetch");
  await mkdir(dir, { recursive: true });
  const name = `${Date.now().toString(36)}-${(new URL(outcome.url).pathname.split("/").pop() || "download").replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 80)}`;
  const file = join(dir, name);
  await writeFile(file, outcome.body);
  const text = `The URL returned binary content (${type}, ${outcome.body.length} bytes${outcome.truncated ? ", cut off" : ""}), which is not text. It was saved to ${file}; Read can open images and PDFs.`;
  return { ...base, text, paginated: false, size: 200 };
}

async function render(
  page: CachedPage,
  input: WebFetchInput,
  summarize: WebFetchSummarizer | undefined,
  sizes: { pageChars: number; summarizeChars: number },
  signal: AbortSignal,
): Promise<string> {
  if (!page.paginated) return page.text;
  const offset = input.offset ?? 0;
  if (offset > 0 && offset >= page.text.length) {
    throw new Error(`offset ${offset} is past the end of the page (${page.text.length} characters).`);
  }
  if (summarize) {
    const content = page.text.slice(offset, offset + sizes.summarizeChars);
    return summarize({ url: page.url, prompt: input.prompt, content, signal });
  }
  const end = Math.min(page.text.length, offset + sizes.pageChars);
  const body = page.text.slice(offset, end);
  if (offset === 0 && end === page.text.length) return body;
  const more = end < page.text.length ? ` Continue with offset: ${end}.` : " This is the end of the page.";
  return `${body}\n\n[Characters ${offset} to ${end} of ${page.text.length}.${more}]`;
}

export const WebFetchTool = createWebFetchTool();
