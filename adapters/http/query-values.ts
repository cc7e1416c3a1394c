/**
 * The query string's parameters, each with its first value (percent-decoded, `+` as a space), as the
 * privacy API reads them: Elysia's own `query` keeps the last of a repeated name. A request without a query
 * string parses nothing.
 */
export function firstQueryValues(request: Request): (name: string) => string | undefined {
  const at = request.url.indexOf("?");
  if (at < 0) return () => undefined;
  const params = new URLSearchParams(request.url.slice(at + 1).split("#", 1)[0]);
  return (name) => params.get(name) ?? undefined;
}
