import { about, fail, isNonEmptyString, jsonObject } from "./expect.ts";
import type { ScenarioContext } from "./scenario.ts";

/** A v1 session (SES-07): the JSESSIONID cookie and the utk, ready to send. */
export interface V1Session {
  /** The JSESSIONID value. */
  readonly cookie: string;
  readonly utk: string;
  /** The request headers that carry the session cookie. */
  readonly headers: Readonly<Record<string, string>>;
  /** The query parameters that carry the utk. */
  readonly query: Readonly<Record<string, string>>;
}

/** The JSESSIONID value set by a login answer, or null. */
function sessionCookieOf(setCookies: readonly string[]): string | null {
  for (const header of setCookies) {
    const match = /^JSESSIONID=([^;]*)/.exec(header);
    if (match?.[1]) return match[1];
  }
  return null;
}

/**
 * Logs in over HTTP (POST /v1/login with form fields username and password, SES-01) and answers the
 * session a later v1 call needs. Fails the scenario when the login does not answer 200 with a utk and a cookie.
 */
export async function loginV1(
  ctx: Pick<ScenarioContext, "base" | "fixtures">,
  user: { readonly email: string; readonly password: string } = ctx.fixtures.user,
): Promise<V1Session> {
  const answer = await ctx.base.post("/v1/login", { form: { username: user.email, password: user.password } });
  if (answer.status !== 200) fail(about(answer, `the login of ${user.email} must answer 200`));
  const utk = jsonObject(answer).utk;
  const cookie = sessionCookieOf(answer.setCookies);
  if (!isNonEmptyString(utk)) fail(about(answer, `the login of ${user.email} answered no utk`));
  if (!cookie)
    fail(
      `${answer.request}: the login of ${user.email} set no JSESSIONID cookie: Set-Cookie ${JSON.stringify(answer.setCookies)}`,
    );
  return { cookie, utk, headers: { cookie: `JSESSIONID=${cookie}` }, query: { utk } };
}
