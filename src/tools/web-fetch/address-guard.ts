import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from "node:dns";
import { BlockList, isIP } from "node:net";

/**
 * Addresses a fetch made on the model's behalf must never reach: loopback, private networks,
 * link-local (cloud metadata at 169.254.169.254 and fd00:ec2::254), carrier-grade NAT,
 * multicast, documentation and reserved ranges. IPv6 forms that embed an IPv4 address
 * (mapped, NAT64, 6to4, Teredo) are judged by the address they embed.
 */
const blocked = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["127.0.0.0", 8], ["169.254.0.0", 16],
  ["172.16.0.0", 12], ["192.0.0.0", 24], ["192.0.2.0", 24], ["192.88.99.0", 24], ["192.168.0.0", 16],
  ["198.18.0.0", 15], ["198.51.100.0", 24], ["203.0.113.0", 24], ["224.0.0.0", 4], ["240.0.0.0", 4],
] as const) blocked.addSubnet(net, prefix, "ipv4");
for (const [net, prefix] of [
  ["::", 128], ["::1", 128], ["100::", 64], ["2001:db8::", 32], ["fc00::", 7], ["fe80::", 10], ["fec0::", 10], ["ff00::", 8],
] as const) blocked.addSubnet(net, prefix, "ipv6");

/** The IPv4 address an IPv6 address carries, for the forms that route to it. */
function embeddedIPv4(address: string): string | null {
  const groups = expandIPv6(address);
  if (!groups) return null;
  const v4 = (hi: number, lo: number): string => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const zeros = (from: number, to: number): boolean => groups.slice(from, to).every((g) => g === 0);
  // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible, deprecated), 64:ff9b::a.b.c.d (NAT64)
  if (zeros(0, 5) && (groups[5] === 0xffff || groups[5] === 0)) return v4(groups[6]!, groups[7]!);
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zeros(2, 6)) return v4(groups[6]!, groups[7]!);
  if (groups[0] === 0x2002) return v4(groups[1]!, groups[2]!); // 6to4
  if (groups[0] === 0x2001 && groups[1] === 0) return v4(~groups[6]! & 0xffff, ~groups[7]! & 0xffff); // Teredo client
  return null;
}

function expandIPv6(address: string): number[] | null {
  let text = address.toLowerCase();
  const zone = text.indexOf("%");
  if (zone >= 0) text = text.slice(0, zone);
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const parts = dotted[1]!.split(".").map(Number);
    text = `${text.slice(0, dotted.index)}${((parts[0]! << 8) | parts[1]!).toString(16)}:${((parts[2]! << 8) | parts[3]!).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(":") : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(":") : [];
  const fill = halves.length === 2 ? 8 - head.length - tail.length : 0;
  const groups = [...head, ...Array<string>(Math.max(fill, 0)).fill("0"), ...tail].map((g) => parseInt(g, 16));
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

/** Why an IP address may not be fetched, or null when it is a public address. */
export function nonPublicReason(address: string): string | null {
  const family = isIP(address);
  if (family === 0) return `${address} is not an IP address`;
  if (family === 4) return blocked.check(address, "ipv4") ? `${address} is not a public address` : null;
  const inner = embeddedIPv4(address);
  if (inner !== null && blocked.check(inner, "ipv4")) return `${address} leads to ${inner}, which is not a public address`;
  return blocked.check(address, "ipv6") ? `${address} is not a public address` : null;
}

export class BlockedAddressError extends Error {
  constructor(
    readonly host: string,
    readonly reason: string,
  ) {
    super(`WebFetch refuses ${host}: ${reason}. Only public addresses can be fetched.`);
    this.name = "BlockedAddressError";
  }
}

/** Resolves a host name to all its addresses (the system resolver by default; tests give their own DNS answers). */
export type NameResolver = (hostname: string, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

const systemResolver: NameResolver = (hostname, callback) => dnsLookup(hostname, { all: true }, callback);

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for `http.request` that checks every address a name resolves to, at connect time:
 * the address the socket connects to is the one checked, so a DNS answer that changes between
 * a check and the connection (rebinding) cannot slip through. Hosts in `allowHosts` skip the check.
 */
export function guardedLookup(allowHosts: ReadonlySet<string>, resolveName: NameResolver = systemResolver) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    resolveName(hostname, (err, addresses) => {
      if (err) return callback(err, "");
      const list = addresses.filter((a) => !options.family || options.family === a.family);
      if (!allowHosts.has(hostname.toLowerCase())) {
        for (const a of list) {
          const reason = nonPublicReason(a.address);
          if (reason) return callback(new BlockedAddressError(hostname, `it resolves to ${a.address}; ${reason}`), "");
        }
      }
      if (options.all) return callback(null, list);
      const first = list[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" }), "");
      callback(null, first.address, first.family);
    });
  };
}
