import type { IncomingMessage } from "node:http";
import ipaddr from "ipaddr.js";
import proxyAddr from "proxy-addr";

/** Which peers are proxies whose X-Forwarded-For is believed (SVC_TRUSTED_PROXIES); null believes none. */
export type ProxyTrust = ((address: string, hop: number) => boolean) | null;

/**
 * The trust of SVC_TRUSTED_PROXIES' list: addresses, CIDR ranges (`10.0.0.0/8`, `fd00::/8`) and the names
 * `loopback`, `linklocal` and `uniquelocal`, read by proxy-addr (the parser Express uses). Throws a TypeError
 * naming an entry it cannot read.
 */
export function compileProxyTrust(entries: readonly string[]): ProxyTrust {
  return entries.length === 0 ? null : proxyAddr.compile([...entries]);
}

/**
 * The client's address: the socket's peer, or, when that peer is a trusted proxy, the nearest address in
 * X-Forwarded-For that is not a trusted proxy itself (so a client cannot choose its address by writing the
 * header: the entries it wrote stand left of the ones the proxies appended, and are never reached past an
 * untrusted hop). Always in canonical form (canonicalAddress); a forwarded entry that is not an address
 * (`unknown`, a name) leaves the peer as the client.
 */
export function clientAddressOf(peer: string, forwardedFor: string | null, trust: ProxyTrust): string {
  const socketPeer = canonicalAddress(peer) ?? peer;
  if (trust === null || forwardedFor === null) return socketPeer;
  const request = {
    socket: { remoteAddress: socketPeer },
    connection: { remoteAddress: socketPeer },
    headers: { "x-forwarded-for": forwardedFor },
  };
  return canonicalAddress(proxyAddr(request as unknown as IncomingMessage, trust)) ?? socketPeer;
}

/**
 * One spelling per address, so that one client is one source whoever wrote it: a port (`203.0.113.7:50123`,
 * `[2001:db8::1]:443`, as some proxies append it) and brackets dropped; an IPv4-mapped IPv6 address
 * (`::ffff:203.0.113.7`, `::ffff:cb00:7107`, what a dual-stack socket reports for an IPv4 client) as its IPv4
 * address; IPv6 compressed and in lower case. Null for what is not an IP address.
 */
export function canonicalAddress(text: string): string | null {
  // What a socket reports for an IPv4 client of an IPv4 listener, every request: nothing to do.
  if (plainIpv4.test(text)) return text;
  // ... and of a dual-stack listener.
  if (text.startsWith("::ffff:") && plainIpv4.test(text.slice(7))) return text.slice(7);
  const trimmed = text.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(trimmed);
  const withoutPort = bracketed ? (bracketed[1] as string) : trimmed.replace(/^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/, "$1");
  const [address, zone] = withoutPort.split("%");
  if (address === undefined || !ipaddr.isValid(address)) return null;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === "ipv4" && !ipaddr.IPv4.isValidFourPartDecimal(address) && !address.includes(":")) return null;
  return zone === undefined || parsed.kind() === "ipv4" ? parsed.toString() : `${parsed.toString()}%${zone}`;
}

const plainIpv4 = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
