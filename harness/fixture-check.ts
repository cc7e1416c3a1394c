import { describeAnswer } from "./client.ts";
import type { Target } from "./target.ts";

/** What the check of the fixtures' users before a run found. */
export type FixtureCheck = { readonly ok: true } | { readonly ok: false; readonly reason: string };

type FixtureUser = Target["fixtures"]["user"];

/**
 * Posts a form once for each fixture user (the user and the other account's user) and stops at the first
 * that the target refuses with 401, describing it with `refused`. A target that does not answer at all is
 * stopped by the reachability check; any other answer (404: the route is absent; 5xx) is left to the
 * scenarios, each naming the request.
 */
async function checkEachUser(
  target: Target,
  path: string,
  formOf: (user: FixtureUser) => Record<string, string>,
  refused: (user: FixtureUser, field: string, request: string) => string,
): Promise<FixtureCheck> {
  const users = [
    { user: target.fixtures.user, field: "fixtures.user" },
    { user: target.fixtures.otherUser, field: "fixtures.otherUser" },
  ];
  const url = `${target.urls.base}${path}`;
  for (const { user, field } of users) {
    let response: Response;
    try {
      response = await target.send(
        new Request(url, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams(formOf(user)).toString(),
        }),
      );
    } catch {
      return { ok: true };
    }
    const bytes = new Uint8Array(await response.arrayBuffer().catch(() => new ArrayBuffer(0)));
    if (response.status !== 401) continue;
    const answered = describeAnswer(
      { status: response.status, headers: response.headers, bytes, text: new TextDecoder().decode(bytes) },
      200,
    );
    return { ok: false, reason: refused(user, field, `POST ${url} answered ${answered}`) };
  }
  return { ok: true };
}

/**
 * Logs in once as each fixture user that scenarios log in with, so that users the target does not have
 * (svc-hub's demo users, when no target file names the target's own) stop the run with one message instead
 * of failing scenarios of every area that logs in first.
 */
export function checkFixtureLogins(target: Target): Promise<FixtureCheck> {
  return checkEachUser(
    target,
    "/v1/login",
    (user) => ({ username: user.email, password: user.password }),
    (user, field, request) =>
      `the fixture user ${user.email} cannot log in: ${request}. ` +
      `Name users the target has in a target file (--target-file, "${field}": email, password, apiKey); svc-hub's demo users are the default`,
  );
}

/**
 * Asks once for a v2 token (POST /v2/auth, DEC-AUT-01) with each fixture user's API key, so that a key the
 * target does not know stops the run with one message naming the target file's field. Otherwise every v2
 * scenario would fail for it, and their failed attempts would lock the real key (DEC-AUT-01 counts them).
 */
export function checkFixtureApiKeys(target: Target): Promise<FixtureCheck> {
  return checkEachUser(
    target,
    "/v2/auth",
    (user) => ({ username: user.email, key: user.apiKey }),
    (user, field, request) =>
      `the API key of the fixture user ${user.email} is refused: ${request}. ` +
      `Set "${field}.apiKey" in a target file (--target-file) to a key the target has for that user; svc-hub's demo keys are the default`,
  );
}
