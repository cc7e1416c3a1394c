import { Elysia, t } from "elysia";
import { sourceOfAddress } from "../../core/collect/index.ts";
import { managementError } from "../../core/errors/index.ts";
import { readCookieValue } from "../../core/visitors/index.ts";
import type { AppDeps } from "./app-deps.ts";
import { connectionOf } from "./connection.ts";
import { failWith, jsonResponse } from "./error-mapping.ts";
import { answersOf, ErrorBody, formBodyOf } from "./openapi-parts.ts";
import { readFormFields } from "./request-body.ts";

/** Form bodies of login and token calls are small; anything larger is refused unread. */
const maxFormBytes = 16 * 1024;

async function formOf(request: Request): Promise<Map<string, string>> {
  const fields = await readFormFields(request, maxFormBytes);
  if (!fields.ok) {
    failWith(
      fields.error === "not-a-form"
        ? managementError("invalidParameter", {
            parameter: "Content-Type",
            problem: "must be application/x-www-form-urlencoded",
          })
        : managementError("invalidParameter", { parameter: "body", problem: `must be at most ${maxFormBytes} bytes` }),
    );
  }
  return fields.value;
}

/** SES-03, DEC-SES-03 */
function sessionCookie(value: string): string {
  return `JSESSIONID=${value}; Path=/; Secure; HttpOnly; SameSite=Lax`;
}

/** SES-04, DEC-SES-03 */
const rememberMeCookie = "rememberMe=deleteMe; Path=/; Max-Age=0";
const endedSessionCookie = "JSESSIONID=; Path=/; Max-Age=0; Secure; HttpOnly; SameSite=Lax";

/**
 * The session API (v1) and token issue (v2): POST /v1/login, POST /v1/logout, POST /v2/auth.
 * SES-01..13, DEC-SES-01..05, AUT-01, DEC-AUT-01.
 */
export function sessionRoutes(deps: AppDeps) {
  return new Elysia({ name: "session" })
    .post(
      "/v1/login",
      async ({ request }) => {
        const form = await formOf(request);
        const session = await deps.auth.login(
          form.get("username"),
          form.get("password"),
          sourceOfAddress(connectionOf(request).address),
        );
        if (!session.ok) failWith(session.error);
        const response = jsonResponse(200, { utk: session.value.utk });
        response.headers.append("set-cookie", sessionCookie(session.value.cookie));
        response.headers.append("set-cookie", rememberMeCookie);
        return response;
      },
      {
        parse: "none",
        detail: {
          tags: ["session"],
          summary: "Log in: a JSESSIONID cookie and a utk for later v1 calls",
          description: "Five failures within 10 minutes lock the username for 10 minutes (1402).",
          requestBody: formBodyOf(
            { username: "The user's e-mail", password: "The user's password" },
            "The credentials, as form fields",
          ),
        },
        response: { 200: t.Object({ utk: t.String() }), 400: ErrorBody, 401: ErrorBody },
      },
    )
    .post(
      "/v1/logout",
      async ({ request }) => {
        const ended = await deps.auth.logout(readCookieValue(request.headers.get("cookie"), "JSESSIONID") ?? undefined);
        if (!ended.ok) failWith(ended.error);
        return new Response(null, { status: 200, headers: { "set-cookie": endedSessionCookie } });
      },
      {
        parse: "none",
        detail: {
          tags: ["session"],
          summary: "Log out: the session and its utk stop working (cookie JSESSIONID)",
          responses: answersOf({
            200: { description: "Logged out: the cookie is cleared; no body" },
            401: "No session, or one that has ended (1401)",
          }),
        },
      },
    )
    .post(
      "/v2/auth",
      async ({ request }) => {
        const form = await formOf(request);
        const issued = await deps.auth.issueToken(
          form.get("username"),
          form.get("key"),
          sourceOfAddress(connectionOf(request).address),
        );
        if (!issued.ok) failWith(issued.error);
        return issued.value;
      },
      {
        parse: "none",
        detail: {
          tags: ["session"],
          summary: "Issue a bearer token (JWT, 30 minutes) from an API key, for the v2 APIs",
          description:
            "Failures lock the key login (not the password login) like /v1/login; once locked, a wrong key answers 1402 and the right key still gets a token.",
          requestBody: formBodyOf(
            { username: "The user's e-mail", key: "One of the user's API keys" },
            "The user and an API key, as form fields",
          ),
        },
        response: { 200: t.Object({ token: t.String() }), 400: ErrorBody, 401: ErrorBody },
      },
    );
}
