/** A query parameter whose value is a secret: libpq's `password` and `sslpassword`, and their kin. */
const secretParameter = /pass|pwd|secret|token/i;

/**
 * A database URL as a message, the banner or the log shows it: the password of its user-info and the value of
 * each password-like query parameter (`?password=`, `?sslpassword=`) replaced by `***`, the rest as given.
 * Anything that is not a URL is shown as `(not a URL)`: its parts cannot be told apart, so none is shown.
 */
export function displayDatabaseUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "(not a URL)";
  }
  if (parsed.password !== "") parsed.password = "***";
  const names = [...new Set(parsed.searchParams.keys())].filter((name) => secretParameter.test(name));
  if (names.length === 0) return parsed.toString();
  // Each value of a secret parameter replaced where it stands, so the query keeps its order.
  const query = [...parsed.searchParams].map(([name, value]) => [name, names.includes(name) ? "***" : value]);
  parsed.search = new URLSearchParams(query).toString();
  return parsed.toString();
}
