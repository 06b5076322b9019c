import { createHash, randomBytes } from "node:crypto";
import { mkdir, open, readFile, rename, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { auth, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";

/**
 * OAuth 2.1 for remote MCP servers, as the MCP authorization spec describes, on the MCP SDK's
 * client side (discovery, dynamic client registration, PKCE, token refresh). `armature mcp login
 * NAME` runs the browser flow once; afterwards connections use the stored tokens and refresh them.
 * One file per server URL in `<config dir>/mcp-oauth/`, mode 0600.
 */
interface StoredAuth {
  serverUrl: string;
  redirectUrl?: string;
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  codeVerifier?: string;
}

/** Raised where the flow would need a person (no tokens, or a refresh refused): names the command that logs in. */
export class OAuthLoginNeeded extends Error {
  constructor(readonly serverName: string) {
    super(`MCP server ${serverName} needs OAuth authorization: run \`armature mcp login ${serverName}\` once (it opens the server's login page), then try again`);
    this.name = "OAuthLoginNeeded";
  }
}

export function oauthFile(configDir: string, serverUrl: string): string {
  return join(configDir, "mcp-oauth", `${createHash("sha256").update(serverUrl).digest("hex").slice(0, 32)}.json`);
}

async function readStored(path: string, serverUrl: string): Promise<StoredAuth> {
  try {
    const stored = JSON.parse(await readFile(path, "utf8")) as StoredAuth;
    if (stored.serverUrl === serverUrl) return stored;
  } catch {
    // none yet, or unreadable: start over
  }
  return { serverUrl };
}

/** Written to a temp file created 0600, then renamed over: never readable by others, never half written. */
async function writeStored(path: string, stored: StoredAuth): Promise<void> {
  await mkdir(join(path, ".."), { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  const handle = await open(temp, "wx", 0o600);
  try {
    await handle.writeFile(JSON.stringify(stored, null, 2));
  } finally {
    await handle.close();
  }
  await rename(temp, path);
}

/** Whether tokens were stored for this server (a connection then uses them). */
export async function hasStoredTokens(configDir: string, serverUrl: string): Promise<boolean> {
  return (await readStored(oauthFile(configDir, serverUrl), serverUrl)).tokens !== undefined;
}

/** The SDK's client auth provider, backed by the file. Without `onAuthorizationUrl` it never starts a login: it raises OAuthLoginNeeded. */
export class FileOAuthProvider implements OAuthClientProvider {
  private readonly path: string;
  private stored: StoredAuth | undefined;
  private readonly stateValue = randomBytes(16).toString("base64url");

  constructor(
    private readonly serverName: string,
    private readonly serverUrl: string,
    configDir: string,
    private readonly login?: { redirectUrl: string; onAuthorizationUrl: (url: URL) => void },
  ) {
    this.path = oauthFile(configDir, serverUrl);
  }

  get file(): string {
    return this.path;
  }

  private async load(): Promise<StoredAuth> {
    this.stored ??= await readStored(this.path, this.serverUrl);
    return this.stored;
  }

  private async update(change: Partial<StoredAuth>): Promise<void> {
    this.stored = { ...(await this.load()), ...change };
    await writeStored(this.path, this.stored);
  }

  get redirectUrl(): string | undefined {
    return this.login?.redirectUrl ?? this.stored?.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "armature",
      redirect_uris: this.redirectUrl !== undefined ? [this.redirectUrl] : [],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }

  state(): string {
    return this.stateValue;
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const stored = await this.load();
    // A login on another callback port registers again: the old registration names the old one.
    if (this.login && stored.redirectUrl !== this.login.redirectUrl) return undefined;
    return stored.client;
  }

  async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
    await this.update({ client, ...(this.login ? { redirectUrl: this.login.redirectUrl } : {}) });
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    return (await this.load()).tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    await this.update({ tokens });
  }

  redirectToAuthorization(url: URL): void {
    if (!this.login) throw new OAuthLoginNeeded(this.serverName);
    this.login.onAuthorizationUrl(url);
  }

  async saveCodeVerifier(codeVerifier: string): Promise<void> {
    await this.update({ codeVerifier });
  }

  async codeVerifier(): Promise<string> {
    const verifier = (await this.load()).codeVerifier;
    if (verifier === undefined) throw new Error("no PKCE code verifier saved for this login");
    return verifier;
  }

  async invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): Promise<void> {
    if (scope === "all") {
      this.stored = { serverUrl: this.serverUrl };
      await rm(this.path, { force: true });
    } else if (scope === "client") await this.update({ client: undefined });
    else if (scope === "tokens") await this.update({ tokens: undefined });
    else if (scope === "verifier") await this.update({ codeVerifier: undefined });
  }
}

export interface LoginOptions {
  configDir: string;
  /** Told the URL to open in a browser. */
  onAuthorizationUrl: (url: URL) => void;
  /** How long to wait for the browser to come back (ms, default 5 minutes). */
  timeoutMs?: number;
  fetchFn?: typeof fetch;
}

/**
 * The authorization code flow with PKCE for one server: a callback on 127.0.0.1 (any free port),
 * the server's login page opened by the person, the code exchanged for tokens, saved. Resolves with
 * the file the tokens are in.
 */
export async function loginMcpServer(serverName: string, serverUrl: string, options: LoginOptions): Promise<string> {
  let provider: FileOAuthProvider | undefined;
  let settle!: { resolve: (code: string) => void; reject: (err: Error) => void };
  const code = new Promise<string>((resolve, reject) => (settle = { resolve, reject }));
  // Awaited only once the login page is open; a bad callback before that must not go unhandled.
  code.catch(() => undefined);
  const callback = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== "/callback") return void res.writeHead(404).end();
    const error = url.searchParams.get("error");
    const got = url.searchParams.get("code");
    const ok = error === null && got !== null && url.searchParams.get("state") === provider?.state();
    res.writeHead(ok ? 200 : 400, { "content-type": "text/plain; charset=utf-8" }).end(ok ? "armature: logged in. You can close this page.\n" : "armature: the login did not complete.\n");
    if (ok) settle.resolve(got);
    else settle.reject(new Error(error !== null ? `the server refused the login: ${error} ${url.searchParams.get("error_description") ?? ""}`.trim() : "the login page came back without a valid code and state"));
  });
  await new Promise<void>((resolve) => callback.listen(0, "127.0.0.1", resolve));
  const timer = setTimeout(() => settle.reject(new Error("no answer from the login page in time")), options.timeoutMs ?? 300_000);
  try {
    const redirectUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
    provider = new FileOAuthProvider(serverName, serverUrl, options.configDir, { redirectUrl, onAuthorizationUrl: options.onAuthorizationUrl });
    await provider.invalidateCredentials("tokens");
    const fetchFn = options.fetchFn ? { fetchFn: options.fetchFn } : {};
    const first = await auth(provider, { serverUrl, ...fetchFn });
    if (first !== "AUTHORIZED") {
      const authorizationCode = await code;
      const second = await auth(provider, { serverUrl, authorizationCode, ...fetchFn });
      if (second !== "AUTHORIZED") throw new Error("the server did not issue tokens for the code");
    }
    return provider.file;
  } finally {
    clearTimeout(timer);
    callback.closeAllConnections();
    await new Promise((resolve) => callback.close(resolve));
  }
}
