/**
 * The headers of every answer, unless a route says otherwise (a served data layer's caching, the pixel's):
 * DEC-GEN-05's version, node and no caching, and `nosniff` so that no answer is read as another type than it
 * says (a data layer's JSON as a script, a refusal as HTML).
 */
export function answerHeadersOf(version: string, nodeId: string): Readonly<Record<string, string>> {
  return {
    "x-version": version,
    "x-nodeid": nodeId,
    "cache-control": "no-cache, no-store, must-revalidate",
    "x-content-type-options": "nosniff",
  };
}
