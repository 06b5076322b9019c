// The model SDKs retry a failed request themselves (429, 529, 5xx, connection errors; `maxRetries`).
// This `fetch` for them reports each retry as it is decided, so an agent can say so
// (stream-json's `system/api_retry`): both SDKs number their attempts in `x-stainless-retry-count`.

export interface ApiRetry {
  /** The retry about to be made (1 = the first). */
  attempt: number;
  maxRetries: number;
  /** The wait before it: the server's retry-after, else the SDKs' nominal backoff (they add jitter). */
  delayMs: number;
  /** The failed response's status; null when the request got no response. */
  status: number | null;
}

/** Whether the SDKs retry this response: the server's `x-should-retry`, else 408, 409, 429 and 5xx. */
function retryable(res: Response): boolean {
  if (res.ok) return false;
  const should = res.headers.get("x-should-retry");
  if (should === "true") return true;
  if (should === "false") return false;
  return res.status === 408 || res.status === 409 || res.status === 429 || res.status >= 500;
}

function delayMs(headers: Headers | undefined, retriesSoFar: number): number {
  const ms = Number(headers?.get("retry-after-ms") ?? NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const after = headers?.get("retry-after");
  if (after != null) {
    const seconds = Number(after);
    const wait = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(after) - Date.now();
    if (Number.isFinite(wait) && wait >= 0 && wait < 60_000) return Math.round(wait);
  }
  return Math.min(0.5 * 2 ** retriesSoFar, 8) * 1000;
}

/** `fetch` that calls `onRetry` when the SDK will retry the request it made. */
export function retryObservingFetch(maxRetries: number, onRetry: (retry: ApiRetry) => void, base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const sent = Number(new Headers(init?.headers).get("x-stainless-retry-count") ?? 0);
    const left = Number.isFinite(sent) && sent < maxRetries;
    let res: Response;
    try {
      res = await base(input, init);
    } catch (err) {
      if (left && init?.signal?.aborted !== true) onRetry({ attempt: sent + 1, maxRetries, delayMs: delayMs(undefined, sent), status: null });
      throw err;
    }
    if (left && retryable(res)) onRetry({ attempt: sent + 1, maxRetries, delayMs: delayMs(res.headers, sent), status: res.status });
    return res;
  };
}
