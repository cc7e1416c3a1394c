/**
 * The suite's own scenarios against targets that are not svc-hub: small fakes that answer the requests a
 * scenario makes, some of them wrongly. A wrong body must be a failure (which an expectations entry can
 * turn into expected-fail) naming the request and showing what came back, never a TypeError; the
 * capabilities beyond DEC-OPS-04 (test-clock, event-log, user-admin), absent from an implementation with only the
 * admin routes of DEC-OPS-04, must make their scenarios skip, not fail.
 */
import { describe, expect, it } from "bun:test";
import { allScenarios } from "../conformance/index.ts";
import { checkAdminToken } from "./admin-token.ts";
import { probeCapability } from "./capabilities.ts";
import { checkFixtureApiKeys, checkFixtureLogins } from "./fixture-check.ts";
import { checkReachable } from "./reachability.ts";
import { runScenarios } from "./runner.ts";
import type { Scenario } from "./scenario.ts";
import { inProcessTarget } from "./target.ts";

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

/**
 * A target with a working v1 login, v2 token call, POST /admin/wait and (unless `clock` is false) a test
 * clock, answering `route` for the rest (404 when it answers nothing).
 */
function fakeTarget(
  route: (method: string, path: string, url: URL) => Response | undefined,
  adminToken: string | null = "admin-token-of-theirs",
  clock = true,
) {
  const asked: string[] = [];
  const target = inProcessTarget({
    adminToken,
    handle: (request) => {
      const url = new URL(request.url);
      asked.push(`${request.method} ${url.pathname}${url.search}`);
      const answer = route(request.method, url.pathname, url);
      if (answer) return answer;
      if (request.method === "POST" && url.pathname === "/v1/login") {
        const answer = json({ utk: "u".repeat(32) });
        answer.headers.append("set-cookie", `JSESSIONID=${"c".repeat(40)}; Path=/; Secure; HttpOnly; SameSite=Lax`);
        return answer;
      }
      if (request.method === "POST" && url.pathname === "/v2/auth") return json({ token: "t".repeat(40) });
      if (request.method === "POST" && url.pathname === "/admin/wait") return json({});
      if (clock && url.pathname === "/admin/clock")
        return json({ now: new Date(0).toISOString(), nowMs: 0, offsetMs: 0 });
      return json({ returnCode: 1404, message: "not here" }, 404);
    },
  });
  return { target, asked };
}

function scenario(titleStart: string): Scenario {
  const found = allScenarios.find((entry) => entry.title.startsWith(titleStart));
  if (!found) throw new Error(`no scenario starts with ${titleStart}`);
  return found;
}

describe("a wrong answer body", () => {
  it("of /readyz fails naming the request and showing the body", async () => {
    const { target } = fakeTarget((_, path) => (path === "/readyz" ? json({ status: "WRONG" }) : undefined));
    const [result] = await runScenarios([scenario("[DEC-OPS-01] GET /readyz")], target);
    expect(result?.outcome).toBe("fail");
    expect(result?.message).toBe(
      'GET /readyz: status: expected "ready", got "WRONG" (answered 200 application/json "{\\"status\\":\\"WRONG\\"}")',
    );
  });

  it("of the stored events fails (and an expectations entry makes it expected-fail), instead of breaking on events.length", async () => {
    const { target } = fakeTarget((_, path, url) => {
      if (path === "/event") return new Response(null, { status: 200 });
      if (path === "/admin/events" && url.searchParams.has("traceId")) return json({});
      if (path === "/admin/users" || path === "/admin/events" || path === "/admin/collect/stats")
        return json({ filteredBots: 0, events: [] });
      return undefined;
    });
    const subject = scenario("[COL-03, DEC-COL-01] without svc_profile the event is stored");
    const [result] = await runScenarios([subject], target);
    expect(result?.outcome).toBe("fail");
    expect(result?.message).toMatch(
      /^GET \/admin\/events\?traceId=default-profile_\w+&limit=1000: expected \{events: \[\{\.\.\., data: \{\.\.\.\}\}\]\} \(answered 200 application\/json "\{\}"\)/,
    );
    const [listed] = await runScenarios([subject], target, {
      expectations: {
        implementation: "theirs",
        expectedFailures: [{ clause: "COL-03", reason: "events are not queryable yet" }],
      },
    });
    expect(listed?.outcome).toBe("expected-fail");
  });

  it("of the revision list, or of a revision's details, fails naming the request", async () => {
    const list = fakeTarget((_, path) => (path === "/v1/accounts/acme/main/revisions" ? json({}) : undefined));
    const [notArray] = await runScenarios(
      [scenario("[REV-03, REV-04, REV-05] the details of the demo revision")],
      list.target,
    );
    expect(notArray?.outcome).toBe("fail");
    expect(notArray?.message).toStartWith(
      'GET /v1/accounts/acme/main/revisions?utk=[redacted]: expected a JSON array (answered 200 application/json "{}")',
    );

    const details = fakeTarget((_, path) => {
      if (path === "/v1/accounts/acme/main/revisions") return json(["202501021953"]);
      if (path === "/v1/accounts/acme/main/revisions/202501021953/details")
        return json({ revision_id: "202501021953" });
      return undefined;
    });
    const [noTargets] = await runScenarios(
      [scenario("[REV-06, REV-07, REV-08, DEC-REV-02] the demo bundle on prod")],
      details.target,
    );
    expect(noTargets?.outcome).toBe("fail");
    expect(noTargets?.message).toStartWith(
      "GET /v1/accounts/acme/main/revisions/202501021953/details?utk=[redacted]: expected a revision object with revision_id (string), targets_published",
    );
  });

  it("of a collection preflight that is refused names the request and its status", async () => {
    const { target } = fakeTarget((method) => (method === "OPTIONS" ? new Response("no", { status: 404 }) : undefined));
    const [result] = await runScenarios([scenario("[COL-10, DEC-COL-12] the OPTIONS preflight")], target);
    expect(result?.outcome).toBe("fail");
    expect(result?.message).toStartWith('OPTIONS /event: expected status 200 or 204, got 404 "no"');
  });

  it("of a JSESSIONID without Secure shows the Set-Cookie header, with the session's value redacted", async () => {
    const { target } = fakeTarget((method, path) => {
      if (method !== "POST" || path !== "/v1/login") return undefined;
      const answer = json({ utk: "u".repeat(32) });
      answer.headers.append("set-cookie", "JSESSIONID=session-value-abc; Path=/; HttpOnly; SameSite=Lax");
      return answer;
    });
    const [result] = await runScenarios([scenario("[SES-03, DEC-SES-03] the login sets JSESSIONID")], target);
    expect(result?.outcome).toBe("fail");
    expect(result?.message).toStartWith(
      "JSESSIONID must be Secure; Set-Cookie: JSESSIONID=[redacted]; Path=/; HttpOnly; SameSite=Lax",
    );
    expect(result?.message).not.toContain("session-value-abc");
  });
});

describe("a target with only the admin routes of DEC-OPS-04 and a test clock (wait, file upload, revision publish)", () => {
  const needing = allScenarios.filter(
    (entry) => entry.needs.includes("event-log") || entry.needs.includes("user-admin"),
  );

  it("is probed once before the run, and every scenario needing the event log or the user admin is skipped with the reason", async () => {
    const { target, asked } = fakeTarget(() => undefined);
    const results = await runScenarios(needing, target);
    expect(results.length).toBeGreaterThan(30);
    expect(results.filter((result) => result.outcome !== "skip").map((result) => result.title)).toEqual([]);
    const reasons = new Set(results.map((result) => result.message));
    expect(reasons).toEqual(
      new Set([
        "needs the capability event-log, the stored events and collection counters (GET /admin/events, GET /admin/collect/stats); specified in conformance/INTERPRETING.md, which the target does not have: GET /admin/events?limit=1 answered 404 before the run",
        "needs the capability user-admin, users and API keys (/admin/users, /admin/users/{email}/api-keys, /admin/users/{email}/disabled); specified in conformance/INTERPRETING.md, which the target does not have: GET /admin/users answered 404 before the run",
      ]),
    );
    // The clock is probed too, for the scenarios that also move it (it is there).
    expect(asked).toEqual(["GET /admin/clock", "GET /admin/events?limit=1", "GET /admin/users"]);
  });

  it("a scenario that calls those routes without declaring the need is skipped too, not failed", async () => {
    const { target } = fakeTarget(() => undefined);
    const undeclared = { ...scenario("[SES-13, DEC-SES-04]"), needs: [] };
    const [result] = await runScenarios([undeclared], target, {
      capabilities: { "user-admin": await probeCapability(target, "user-admin") },
    });
    expect(result?.outcome).toBe("skip");
    expect(result?.message).toContain("needs the capability user-admin");
  });

  it("svc-hub itself has them", async () => {
    const { target } = fakeTarget((_, path) =>
      ["/admin/users", "/admin/events", "/admin/collect/stats"].includes(path) ? json({}) : undefined,
    );
    expect(await probeCapability(target, "event-log")).toEqual({ available: true });
    expect(await probeCapability(target, "user-admin")).toEqual({ available: true });
    expect(await probeCapability(fakeTarget(() => undefined, null).target, "user-admin")).toMatchObject({
      available: false,
      reason: expect.stringContaining("admin token"),
    });
  });

  it("one capability without the other: only the scenarios needing the missing one are skipped", async () => {
    const { target } = fakeTarget((_, path) => (path === "/admin/users" ? json([]) : undefined));
    expect(await probeCapability(target, "user-admin")).toEqual({ available: true });
    expect(await probeCapability(target, "event-log")).toMatchObject({ available: false });
  });
});

describe("the check of the fixtures' users before a run", () => {
  it("stops on a refused login, naming the user and the field of the target file; lets a target without the v1 login through", async () => {
    const refusing = fakeTarget((_, path) =>
      path === "/v1/login" ? json({ returnCode: 1401, message: "Authentication Failed" }, 401) : undefined,
    );
    const refused = await checkFixtureLogins(refusing.target);
    expect(refused.ok).toBe(false);
    expect(refused.ok ? "" : refused.reason).toStartWith(
      'the fixture user demo@example.com cannot log in: POST http://svc-hub.in-process/v1/login answered 401 application/json "{\\"returnCode\\":1401,',
    );
    expect(refused.ok ? "" : refused.reason).toContain('"fixtures.user"');

    const accepting = fakeTarget(() => undefined);
    expect(await checkFixtureLogins(accepting.target)).toEqual({ ok: true });
    expect(accepting.asked).toEqual(["POST /v1/login", "POST /v1/login"]);

    const noLogin = fakeTarget((_, path) =>
      path === "/v1/login" ? json({ returnCode: 1404, message: "no" }, 404) : undefined,
    );
    expect(await checkFixtureLogins(noLogin.target)).toEqual({ ok: true });
  });
});

describe("a target with the admin routes of DEC-OPS-04 but without a test clock", () => {
  const noClock = () => fakeTarget(() => undefined, "admin-token-of-theirs", false);

  it("has its admin token accepted (POST /admin/wait), so the scenarios of DEC-OPS-04 still run", async () => {
    const { target, asked } = noClock();
    expect(await checkAdminToken(target)).toEqual({ ok: true });
    expect(asked).toEqual(["POST /admin/wait"]);
  });

  it("is probed once, and every scenario that moves or reads the clock is skipped with the reason", async () => {
    const { target, asked } = noClock();
    const needing = allScenarios.filter(
      (entry) =>
        entry.needs.includes("test-clock") && !entry.needs.includes("event-log") && !entry.needs.includes("user-admin"),
    );
    const results = await runScenarios(needing, target);
    expect(results.length).toBeGreaterThan(15);
    expect(results.filter((result) => result.outcome !== "skip").map((result) => result.title)).toEqual([]);
    expect(results[0]?.message).toBe(
      "needs the capability test-clock, a test clock (GET and PUT /admin/clock, POST /admin/clock/advance; DEC-OPS-02 asks for a virtual clock but names no route); specified in conformance/INTERPRETING.md, which the target does not have: GET /admin/clock answered 404 before the run",
    );
    expect(asked).toEqual(["GET /admin/clock"]);
  });

  it("a scenario that reads the clock without declaring the need is skipped too, not failed", async () => {
    const { target } = noClock();
    const undeclared = {
      ...scenario("[DEC-REV-01, REV-02] revision_id is the publish minute"),
      needs: ["admin" as const],
    };
    const [result] = await runScenarios([undeclared], target, {
      capabilities: { "test-clock": await probeCapability(target, "test-clock") },
    });
    expect(result?.outcome).toBe("skip");
    expect(result?.message).toContain("needs the capability test-clock");
  });

  it("svc-hub itself has them", async () => {
    expect(await probeCapability(fakeTarget(() => undefined).target, "test-clock")).toEqual({ available: true });
  });
});

describe("the checks before a run", () => {
  it("stop on a refused API key, naming the user and the target file's field; one POST /v2/auth per user", async () => {
    const refused = json({ returnCode: 1401, message: "Authentication Failed" }, 401);
    const refusing = fakeTarget((method, path) =>
      method === "POST" && path === "/v2/auth" ? refused.clone() : undefined,
    );
    const found = await checkFixtureApiKeys(refusing.target);
    expect(found.ok ? "" : found.reason).toStartWith(
      'the API key of the fixture user demo@example.com is refused: POST http://svc-hub.in-process/v2/auth answered 401 application/json "{\\"returnCode\\":1401,',
    );
    expect(found.ok ? "" : found.reason).toContain('"fixtures.user.apiKey"');
    expect(refusing.asked).toEqual(["POST /v2/auth"]);

    const otherKeyWrong = inProcessTarget({
      adminToken: null,
      handle: async (request) =>
        new URLSearchParams(await request.text()).get("key") === "demo-key-0002-globex"
          ? refused.clone()
          : json({ token: "t" }, 200),
    });
    const other = await checkFixtureApiKeys(otherKeyWrong);
    expect(other.ok ? "" : other.reason).toContain("the API key of the fixture user globex@example.com is refused");
    expect(other.ok ? "" : other.reason).toContain('"fixtures.otherUser.apiKey"');

    const accepting = fakeTarget(() => undefined);
    expect(await checkFixtureApiKeys(accepting.target)).toEqual({ ok: true });
    expect(accepting.asked).toEqual(["POST /v2/auth", "POST /v2/auth"]);
  });

  it("stop when the target does not answer at all, naming the URL; any answer, even 404, is an answer", async () => {
    const down = inProcessTarget({
      adminToken: null,
      handle: () => Promise.reject(new Error("Unable to connect. Is the computer able to access the url?")),
    });
    expect(await checkReachable(down)).toEqual({
      ok: false,
      reason:
        "the target does not answer: GET http://svc-hub.in-process/healthz failed (Unable to connect. Is the computer able to access the url?); check --target and that the implementation is running",
    });
    expect(await checkReachable(fakeTarget(() => undefined).target)).toEqual({ ok: true });
  });
});
