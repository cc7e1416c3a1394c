/** The query string of a request's URL as parameters (percent-decoded, `+` as a space); none without a `?`. */
export function queryParamsOf(url: string): URLSearchParams {
  const at = url.indexOf("?");
  return new URLSearchParams(at < 0 ? "" : url.slice(at + 1).split("#", 1)[0]);
}

/**
 * The query string's parameters, each with its first value, as the collection endpoint and the privacy,
 * moments and admin events APIs all read them: Elysia's own `query` keeps the last of a repeated name.
 */
export function firstQueryValues(request: Request): (name: string) => string | undefined {
  if (request.url.indexOf("?") < 0) return () => undefined;
  const params = queryParamsOf(request.url);
  return (name) => params.get(name) ?? undefined;
}
