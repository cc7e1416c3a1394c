import type { IncomingMessage } from "node:http";
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
 * untrusted hop).
 */
export function clientAddressOf(peer: string, forwardedFor: string | null, trust: ProxyTrust): string {
  if (trust === null || forwardedFor === null) return peer;
  const request = {
    socket: { remoteAddress: peer },
    connection: { remoteAddress: peer },
    headers: { "x-forwarded-for": forwardedFor },
  };
  return proxyAddr(request as unknown as IncomingMessage, trust);
}
