/**
 * RFC 9110 §9.3.2: HEAD is GET without the body. Elysia answers HEAD only where a route says so (HEAD /event
 * has its own route: it must not collect), and 404 elsewhere, so an uptime check that sends HEAD (many do by
 * default) found /healthz missing. A HEAD that no route takes is answered as the GET of the same URL, headers
 * and status included, without the body.
 */
export function withHeadAsGet(handle: (request: Request) => Promise<Response> | Response) {
  return async (request: Request): Promise<Response> => {
    if (request.method !== "HEAD") return handle(request);
    const own = await handle(request);
    if (own.status !== 404) return own;
    const asGet = await handle(new Request(request.url, { method: "GET", headers: request.headers }));
    await asGet.body?.cancel();
    return new Response(null, { status: asGet.status, statusText: asGet.statusText, headers: asGet.headers });
  };
}
