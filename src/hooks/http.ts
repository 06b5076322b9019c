import { proxiedFetch } from "../net/proxied-fetch.js";
import type { HookExecution } from "./verdict.js";

const MAX_BODY_CHARS = 1 << 20;

export interface HttpHookSpec {
  url: string;
  headers: Record<string, string>;
  allowedEnvVars: readonly string[];
}

export interface HttpRunOptions {
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * Expands `$VAR` and `${VAR}` in a header value, only for names listed in `allowedEnvVars`; any
 * other reference becomes empty, so a hook file cannot pull secrets out of the environment.
 */
export function expandHeaderValue(value: string, allowed: readonly string[], env: NodeJS.ProcessEnv): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_m, braced: string | undefined, bare: string | undefined) => {
    const name = braced ?? bare ?? "";
    return allowed.includes(name) ? (env[name] ?? "") : "";
  });
}

/**
 * POSTs the input JSON. Resolves (never rejects): a 2xx answer with its body, a non-2xx status,
 * or the network error / timeout / abort. Redirects are not followed (the URL is the one configured).
 */
export async function runHttpHook(spec: HttpHookSpec, body: string, options: HttpRunOptions): Promise<HookExecution> {
  if (options.signal?.aborted) return { kind: "aborted" };
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, options.timeoutMs);
  const onAbort = (): void => controller.abort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const headers: Record<string, string> = { "content-type": "application/json" };
    for (const [name, value] of Object.entries(spec.headers)) headers[name] = expandHeaderValue(value, spec.allowedEnvVars, options.env);
    const response = await proxiedFetch(spec.url, { method: "POST", headers, body, signal: controller.signal, redirect: "manual" });
    const text = await readCapped(response);
    return { kind: "http", status: response.status, body: text };
  } catch (err) {
    if (timedOut) return { kind: "timeout", seconds: options.timeoutMs / 1000 };
    if (options.signal?.aborted) return { kind: "aborted" };
    const cause = (err as { cause?: { message?: string; code?: string } }).cause;
    const detail = cause?.code ?? cause?.message;
    return { kind: "http-error", message: `POST ${spec.url} failed: ${(err as Error).message}${detail ? ` (${detail})` : ""}` };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
  }
}

async function readCapped(response: Response): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    if (text.length >= MAX_BODY_CHARS) {
      await reader.cancel().catch(() => {});
      return text.slice(0, MAX_BODY_CHARS);
    }
  }
  return text + decoder.decode();
}
