/** The query string of a request's URL as parameters (percent-decoded, `+` as a space); none without a `?`. */
export function queryParamsOf(url: string): URLSearchParams {
  const at = url.indexOf("?");
  if (at < 0) return new URLSearchParams();
  // A request's URL carries no fragment over HTTP; one made in-process may (`new Request("…?a=1#top")`). The
  // text given keeps its "?", which URLSearchParams drops: only that one, so that "??a=1" names "?a", as in
  // URL's own searchParams.
  const end = url.indexOf("#", at);
  return new URLSearchParams(end < 0 ? url.slice(at) : url.slice(at, end));
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
