/**
 * `WebFetch(domain:host)` matching on the hostname as a URL parser sees it: userinfo
 * (`trusted.com@evil.com`), case, a trailing dot, IDN (punycode) and IPv4 spellings
 * (`0x7f.1`, `2130706433`) are all normalised by WHATWG URL parsing before the compare.
 */

/** The host a URL really goes to, or null when it is not an http(s) URL that parses. */
export function urlHost(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return null;
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return null;
  return normaliseHost(parsed.hostname);
}

function normaliseHost(host: string): string {
  const h = host.toLowerCase().replace(/\.+$/, "");
  // An IPv4-mapped IPv6 address is the IPv4 host: `[::ffff:127.0.0.1]` is `127.0.0.1`.
  const mapped = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/.exec(h);
  if (mapped) {
    const hi = parseInt(mapped[1]!, 16);
    const lo = parseInt(mapped[2]!, 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  const dotted = /^\[::ffff:(\d+\.\d+\.\d+\.\d+)\]$/.exec(h);
  return dotted ? dotted[1]! : h;
}

/** A rule's host pattern in the same normal form (an IDN pattern becomes punycode). */
export function ruleHostPattern(spec: string): string | null {
  const m = /^domain\s*:\s*(.+)$/i.exec(spec.trim());
  if (!m) return null;
  const pattern = m[1]!.trim();
  if (pattern === "*") return "*";
  const wildcardPrefix = pattern.startsWith("*.") ? "*." : "";
  const rest = wildcardPrefix ? pattern.slice(2) : pattern;
  if (rest.includes("*")) {
    // `*` elsewhere matches inside one label; keep it as written, lower-cased.
    return normaliseHost(pattern);
  }
  try {
    return wildcardPrefix + normaliseHost(new URL(`http://${rest}/`).hostname);
  } catch {
    return null;
  }
}

/** `*.x.com` covers subdomains at any depth (not the apex); another `*` stays inside one label. */
export function hostMatches(pattern: string, host: string): boolean {
  if (pattern === "*") return true;
  if (pattern.startsWith("*.") && !pattern.slice(2).includes("*")) {
    const apex = pattern.slice(2);
    return host.endsWith(`.${apex}`) && host.length > apex.length + 1;
  }
  if (!pattern.includes("*")) return host === pattern;
  const re = new RegExp(`^${pattern.split("*").map(escapeRegExp).join("[^.]*")}$`);
  return re.test(host);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
