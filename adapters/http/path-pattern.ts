import { err, ok, type Result } from "../../core/result.ts";

/**
 * `{name}` alone, which the path patterns of faults and of the journal's filter once read as one segment:
 * URLPattern reads it as the literal text `name`, so it is refused with the `:name` it meant.
 */
const bracedName = /\{([A-Za-z_$][\w$]*)\}(?![?*+])/;

/**
 * A path pattern of `POST /admin/faults` or of `GET /admin/requests?path=` (issue 33) as a test of a path, in
 * URLPattern's pathname syntax: `:name` one segment, `*` any run of characters, `(a|b)` a choice. URLPattern is the platform's (Bun's, Deno's, browsers'), so the HTTP adapter compiles the patterns
 * and the core only holds the test; a refusal says why the pattern is not one.
 */
export function compilePathPattern(pattern: string): Result<(path: string) => boolean, string> {
  const braced = bracedName.exec(pattern);
  if (braced)
    return err(
      `writes {${braced[1]}}, which URLPattern reads as the text ${braced[1]}: write :${braced[1]} for one segment`,
    );
  let compiled: URLPattern;
  try {
    compiled = new URLPattern({ pathname: pattern });
  } catch (error) {
    return err(`is not a URLPattern pathname (${error instanceof Error ? error.message : String(error)})`);
  }
  return ok((path) => compiled.test({ pathname: path }));
}
