/**
 * What the listening server knows of a request's connection and the routes need: the client's address (for
 * fairness between sources) and a way to keep the connection open past the idle timeout (a long admin wait).
 * The server (main.ts) attaches it to each request before the app sees it; a request handled in-process
 * (tests, `app.handle`) has none attached and reads as one local client whose connection has no timeout.
 */
export interface Connection {
  /** The peer's IP address as the socket saw it (never a header a client could write). */
  readonly address: string;
  /** Keeps this request's connection open for up to `seconds` of idleness (Bun's `server.timeout`). */
  keepOpenFor(seconds: number): void;
}

/** The idle timeout of every connection (Bun.serve's idleTimeout), and what a kept-open one returns to. */
export const idleTimeoutSeconds = 10;

/** The address a request without an attached connection reads as (in-process requests). */
export const localAddress = "local";

const localConnection: Connection = { address: localAddress, keepOpenFor() {} };
const connections = new WeakMap<Request, Connection>();

/** Attaches what the server knows of `request`'s connection; called once per request, before the app. */
export function attachConnection(request: Request, connection: Connection): Request {
  connections.set(request, connection);
  return request;
}

/** The connection a request came on, or the local one when nothing was attached. */
export function connectionOf(request: Request): Connection {
  return connections.get(request) ?? localConnection;
}

/** A request that reads as sent from `address` (tests of per-source behaviour in-process). */
export function requestFrom(address: string, input: string | URL, init?: RequestInit): Request {
  return attachConnection(new Request(input, init), { address, keepOpenFor() {} });
}
