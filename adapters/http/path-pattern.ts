import { err, ok, type Result } from "../../core/result.ts";

/**
 * `{name}` alone, which the path patterns of faults and of the journal's filter read as one segment before they
 * took URLPattern's syntax. URLPattern would read it as the literal text `name`, which no path a test means holds,
 * so it keeps its earlier meaning: it is read as `:name`, and rules written before keep matching.
 */
const bracedName = /\{([A-Za-z_$][\w$]*)\}(?![?*+])/g;

/**
 * A path pattern of `POST /admin/faults` or of `GET /admin/requests?path=` (issue 33) as a test of a path, in
 * URLPattern's pathname syntax: `:name` one segment, `*` any run of characters, `(a|b)` a choice. URLPattern is the platform's (Bun's, Deno's, browsers'), so the HTTP adapter compiles the patterns
 * and the core only holds the test; a refusal says why the pattern is not one.
 */
export function compilePathPattern(pattern: string): Result<(path: string) => boolean, string> {
  let compiled: URLPattern;
  try {
    compiled = new URLPattern({ pathname: pattern.replace(bracedName, ":$1") });
  } catch (error) {
    return err(`is not a URLPattern pathname (${error instanceof Error ? error.message : String(error)})`);
  }
  return ok((path) => compiled.test({ pathname: path }));
}
