/**
 * DEC-COL-12, DEC-MOM-04: answers readable cross-origin with credentials: the request's Origin echoed (a
 * wildcard is not allowed with credentials), `Vary: Origin`, and the refusal headers exposed to scripts.
 */
export function setCredentialedCors(request: Request, headers: Record<string, string | number>): void {
  headers.vary = "Origin";
  const origin = request.headers.get("origin");
  if (origin) {
    headers["access-control-allow-origin"] = origin;
    headers["access-control-allow-credentials"] = "true";
    headers["access-control-expose-headers"] = "X-Error, Retry-After";
  }
}

/**
 * DEC-COL-03, DEC-COL-12: headers of every /event answer, refusals included (the router's own 404 and 405
 * too): never cached, and readable cross-origin with credentials (the Origin echoed, X-Error exposed).
 */
export function setEventHeaders(request: Request, headers: Record<string, string | number>): void {
  headers["cache-control"] = "no-store";
  setCredentialedCors(request, headers);
}

/** The answer to a CORS preflight for the given methods. */
export function preflight(request: Request, headers: Record<string, string | number>, methods: string): Response {
  setCredentialedCors(request, headers);
  headers.vary = "Origin, Access-Control-Request-Headers";
  headers["access-control-allow-methods"] = methods;
  headers["access-control-allow-headers"] = request.headers.get("access-control-request-headers") ?? "Content-Type";
  headers["access-control-max-age"] = "600";
  return new Response(null, { status: 204 });
}
