/**
 * The console's one way to the admin API: every call carries the admin token of this tab (sessionStorage, or
 * localStorage when the user asked to be remembered in this browser; never a cookie, so no other site's page can
 * make the browser send it) and answers parsed JSON or a readable error. Nothing here renders: what comes back is
 * data, shown by the pages as text.
 */

const tokenKey = "svc-hub.console.token";

/** The tab's token, else the one remembered in this browser. */
export function readToken(): string | null {
  return sessionStorage.getItem(tokenKey) ?? localStorage.getItem(tokenKey);
}

/** Keeps the token for the tab and, when asked, in this browser (every tab, until Sign out forgets it). */
export function keepToken(token: string, rememberInBrowser = false): void {
  sessionStorage.setItem(tokenKey, token);
  if (rememberInBrowser) localStorage.setItem(tokenKey, token);
  else localStorage.removeItem(tokenKey);
}

/** Forgets the token, in this tab and in this browser. */
export function forgetToken(): void {
  sessionStorage.removeItem(tokenKey);
  localStorage.removeItem(tokenKey);
}

/** An answer other than 2xx, with the service's own message where it gave one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Told when the token is refused (401), so that the console asks for it again. */
let onUnauthorised: () => void = () => undefined;

export function whenUnauthorised(listener: () => void): void {
  onUnauthorised = listener;
}

export function authHeaders(token = readToken()): Record<string, string> {
  return token ? { authorization: `Bearer ${token}` } : {};
}

async function messageOf(response: Response): Promise<string> {
  const text = await response.text().catch(() => "");
  try {
    const body = JSON.parse(text) as { message?: unknown; returnCode?: unknown };
    if (typeof body.message === "string") {
      return typeof body.returnCode === "number" ? `${body.message} (${body.returnCode})` : body.message;
    }
  } catch {
    // Not JSON: the text itself, or the status.
  }
  return text.trim() || `HTTP ${response.status}`;
}

/** Calls the admin API (or any path of svc-hub) and answers the parsed JSON body. */
export async function call<T>(
  path: string,
  options: { method?: string; body?: unknown; signal?: AbortSignal; token?: string } = {},
): Promise<T> {
  const headers: Record<string, string> = { ...authHeaders(options.token ?? readToken()) };
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(path, {
    method: options.method ?? "GET",
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: options.signal,
    credentials: "omit",
  });
  if (response.status === 401 && options.token === undefined) onUnauthorised();
  if (!response.ok) throw new ApiError(response.status, await messageOf(response));
  return (await response.json()) as T;
}

/** Fetches a file with the token and hands it to the browser as a download (a link cannot carry the header). */
export async function download(path: string, fileName: string): Promise<void> {
  const response = await fetch(path, { headers: authHeaders(), credentials: "omit" });
  if (!response.ok) throw new ApiError(response.status, await messageOf(response));
  const url = URL.createObjectURL(await response.blob());
  try {
    const link = document.createElement("a");
    link.href = url;
    link.download = fileName;
    document.body.append(link);
    link.click();
    link.remove();
  } finally {
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
}

/** A path segment, encoded. */
export const seg = (value: string) => encodeURIComponent(value);

/** A query string of the given values, leaving out empty ones. */
export function queryOf(values: Record<string, string | number | undefined | null>): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) {
    if (value !== undefined && value !== null && value !== "") query.set(key, String(value));
  }
  const text = query.toString();
  return text ? `?${text}` : "";
}
