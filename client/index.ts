/**
 * svc-hub/client: a typed client for every API of the interface, built on openapi-fetch and the types generated
 * from svc-hub's OpenAPI document (client/openapi.types.ts, `npm run client:generate`). Beyond the admin API it
 * speaks only the interface, so it works against any implementation of it.
 *
 *   const hub = createSvcHubClient({ baseUrl, adminToken });
 *   const v1 = await hub.login("demo@example.com", "demo-password-1");   // cookie + utk on every v1 call
 *   await v1.api.GET("/v1/dle/accounts/{account}/profiles/{profile}/datalayers", { params: { path } });
 *   const v2 = await hub.authorize("demo@example.com", "demo-key-0001-acme"); // bearer token
 *   await hub.admin.POST("/admin/wait", { body: {} });
 *
 * Helpers for tests, each taking the client: faults (faults.ts), events (events.ts: find, count, wait for), the
 * clock, the wait and the reset (admin-helpers.ts), requests (requests.ts).
 */
import createClient, { type Client, type Middleware } from "openapi-fetch";
import type { components, operations, paths } from "./openapi.types.ts";

export type { components, operations, paths };

/** A client of every path of the interface, typed by the OpenAPI document. */
export type SvcHubApi = Client<paths>;

export interface SvcHubClientOptions {
  /** Where the implementation listens, e.g. http://127.0.0.1:8080 (a trailing "/" is forgiven). */
  readonly baseUrl: string;
  /** svc-hub's SVC_ADMIN_TOKEN, for `admin`. */
  readonly adminToken?: string;
  /** A fetch of your own (a test double, an instrumented one); the global fetch by default. */
  readonly fetch?: (request: Request) => Promise<Response>;
}

/** A v1 session: `api` sends the session's JSESSIONID cookie and its `utk` query parameter with every /v1 call. */
export interface SvcHubSession {
  readonly api: SvcHubApi;
  readonly utk: string;
  /** The JSESSIONID cookie's value. */
  readonly sessionId: string;
  /** POST /v1/logout: the session and its utk stop working. */
  logout(): Promise<void>;
}

/** A v2 client: `api` sends `Authorization: Bearer <token>` from POST /v2/auth with every call. */
export interface SvcHubBearer {
  readonly api: SvcHubApi;
  readonly token: string;
}

export interface SvcHubClient {
  /** Calls without credentials: /event, the moments API, /dle, health, and the login calls themselves. */
  readonly api: SvcHubApi;
  /** Calls with the admin token (svc-hub's admin API); throws on use when no adminToken was given. */
  readonly admin: SvcHubApi;
  /** POST /v1/login (form fields username, password): a session for the v1 APIs. */
  login(username: string, password: string): Promise<SvcHubSession>;
  /** POST /v2/auth (form fields username, key): a bearer token for the v2 APIs. */
  authorize(username: string, key: string): Promise<SvcHubBearer>;
}

/** What a call that the client made on the user's behalf answered, when it was not a success. */
export class SvcHubClientError extends Error {
  override readonly name = "SvcHubClientError";
  constructor(
    readonly call: string,
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`${call} answered ${status}: ${JSON.stringify(body)}`);
  }
}

const form = { "Content-Type": "application/x-www-form-urlencoded" } as const;

export function createSvcHubClient(options: SvcHubClientOptions): SvcHubClient {
  const baseUrl = options.baseUrl.replace(/\/$/, "");
  const open = (...middleware: Middleware[]): SvcHubApi => {
    const api = createClient<paths>({ baseUrl, ...(options.fetch ? { fetch: options.fetch } : {}) });
    for (const each of middleware) api.use(each);
    return api;
  };
  const api = open();
  const admin = open({
    onRequest({ request }) {
      if (options.adminToken === undefined) throw new Error("svc-hub client: the admin API needs adminToken");
      request.headers.set("Authorization", `Bearer ${options.adminToken}`);
      return request;
    },
  });

  return {
    api,
    admin,
    async login(username, password) {
      const { data, error, response } = await api.POST("/v1/login", { body: { username, password }, headers: form });
      if (data === undefined) throw new SvcHubClientError("POST /v1/login", response.status, error);
      const sessionId = sessionCookieOf(response);
      if (sessionId === null) throw new SvcHubClientError("POST /v1/login", response.status, "no JSESSIONID cookie");
      const session = open(sessionMiddleware(sessionId, data.utk));
      return {
        api: session,
        utk: data.utk,
        sessionId,
        async logout() {
          const { error, response } = await session.POST("/v1/logout");
          if (!response.ok) throw new SvcHubClientError("POST /v1/logout", response.status, error);
        },
      };
    },
    async authorize(username, key) {
      const { data, error, response } = await api.POST("/v2/auth", { body: { username, key }, headers: form });
      if (data === undefined) throw new SvcHubClientError("POST /v2/auth", response.status, error);
      return { api: open(bearerMiddleware(data.token)), token: data.token };
    },
  };
}

/** SES-07: the session's cookie and its utk on every /v1 call; neither alone is a session. */
function sessionMiddleware(sessionId: string, utk: string): Middleware {
  return {
    onRequest({ request, schemaPath }) {
      if (!schemaPath.startsWith("/v1/")) return request;
      const url = new URL(request.url);
      url.searchParams.set("utk", utk);
      const next = new Request(url, request);
      next.headers.set("Cookie", `JSESSIONID=${sessionId}`);
      return next;
    },
  };
}

function bearerMiddleware(token: string): Middleware {
  return {
    onRequest({ request }) {
      request.headers.set("Authorization", `Bearer ${token}`);
      return request;
    },
  };
}

/** JSESSIONID from a response's Set-Cookie headers (readable outside browsers). */
function sessionCookieOf(response: Response): string | null {
  for (const cookie of response.headers.getSetCookie()) {
    const match = /^\s*JSESSIONID=([^;]*)/.exec(cookie);
    if (match?.[1]) return match[1];
  }
  return null;
}

export * from "./admin-helpers.ts";
export * from "./events.ts";
export * from "./faults.ts";
export * from "./requests.ts";
