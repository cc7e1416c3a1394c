import { describeAnswer } from "./client.ts";
import type { Target } from "./target.ts";

/** What the check of the fixtures' users before a run found. */
export type FixtureCheck = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/**
 * Logs in once as each fixture user that scenarios log in with (the user and the other account's user), so
 * that users the target does not have (svc-hub's demo users, when no target file names the target's own)
 * stop the run with one message instead of failing scenarios of every area that logs in first. Only a
 * refusal of the credentials (401) stops it: a target without the v1 login (404) or one that breaks (5xx)
 * is left to the scenarios, which report it against the login's clauses.
 */
export async function checkFixtureLogins(target: Target): Promise<FixtureCheck> {
  const users = [
    { user: target.fixtures.user, field: "fixtures.user" },
    { user: target.fixtures.otherUser, field: "fixtures.otherUser" },
  ];
  for (const { user, field } of users) {
    const url = `${target.urls.base}/v1/login`;
    let response: Response;
    try {
      response = await target.send(
        new Request(url, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ username: user.email, password: user.password }).toString(),
        }),
      );
    } catch {
      // A target that does not answer at all is stopped by the reachability check; one that breaks here is left
      // to the scenarios, each naming the request.
      return { ok: true };
    }
    const bytes = new Uint8Array(await response.arrayBuffer().catch(() => new ArrayBuffer(0)));
    if (response.status !== 401) continue;
    const answered = describeAnswer({ status: response.status, headers: response.headers, bytes, text: new TextDecoder().decode(bytes) }, 200);
    return {
      ok: false,
      reason:
        `the fixture user ${user.email} cannot log in: POST ${url} answered ${answered}. ` +
        `Name users the target has in a target file (--target-file, "${field}": email, password, apiKey); svc-hub's demo users are the default`,
    };
  }
  return { ok: true };
}

/**
 * Asks once for a v2 token (POST /v2/auth, DEC-AUT-01) with each fixture user's API key (the user and the
 * other account's user), so that a key the target does not know stops the run with one message naming the
 * target file's field. Otherwise every v2 scenario would fail for it, and their failed attempts would lock the
 * real key (DEC-AUT-01 counts them). Only a refusal (401) stops it: a target without /v2/auth (404) or one that
 * breaks is left to the scenarios.
 */
export async function checkFixtureApiKeys(target: Target): Promise<FixtureCheck> {
  const users = [
    { user: target.fixtures.user, field: "fixtures.user.apiKey" },
    { user: target.fixtures.otherUser, field: "fixtures.otherUser.apiKey" },
  ];
  for (const { user, field } of users) {
    const url = `${target.urls.base}/v2/auth`;
    let response: Response;
    try {
      response = await target.send(
        new Request(url, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ username: user.email, key: user.apiKey }).toString(),
        }),
      );
    } catch {
      // A target that does not answer at all is stopped by the reachability check; one that breaks here is left
      // to the scenarios, each naming the request.
      return { ok: true };
    }
    const bytes = new Uint8Array(await response.arrayBuffer().catch(() => new ArrayBuffer(0)));
    if (response.status !== 401) continue;
    const answered = describeAnswer({ status: response.status, headers: response.headers, bytes, text: new TextDecoder().decode(bytes) }, 200);
    return {
      ok: false,
      reason:
        `the API key of the fixture user ${user.email} is refused: POST ${url} answered ${answered}. ` +
        `Set "${field}" in a target file (--target-file) to a key the target has for that user; svc-hub's demo keys are the default`,
    };
  }
  return { ok: true };
}
