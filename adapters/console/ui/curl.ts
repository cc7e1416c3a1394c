/**
 * A stored event's request as a curl command that sends it again: the same method, query string, body, Content-Type
 * and the headers collection reads. Every argument is single-quoted for a POSIX shell, so no text of the request
 * (quotes, `$(…)`, backticks, new lines) is read by the shell; `--globoff` keeps curl from reading `[]{}` in the URL.
 */
import type { CollectedRequest } from "./types.ts";

/** One argument for a POSIX shell: inside single quotes every character is itself but `'`, written `'\''`. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The curl command that sends `request` to the collection endpoint at `origin` (such as `http://localhost:8080`). */
export function curlCommandOf(request: CollectedRequest, origin: string): string {
  const url = `${origin}/event${request.query === "" ? "" : `?${request.query}`}`;
  const args = ["curl", "--globoff", shellQuote(url)];
  const header = (name: string, value: string | null) => {
    // `Name:` with no value stops curl from sending one of its own (its User-Agent, a form's Content-Type).
    args.push("-H", shellQuote(value === null ? `${name}:` : `${name}: ${value}`));
  };
  header("User-Agent", request.userAgent);
  if (request.cookie !== null) header("Cookie", request.cookie);
  if (request.referer !== null) header("Referer", request.referer);
  if (request.method === "POST") {
    args.push("-X", "POST");
    header("Content-Type", request.contentType);
    args.push("--data-binary", shellQuote(request.body ?? ""));
  }
  return args.join(" ");
}
