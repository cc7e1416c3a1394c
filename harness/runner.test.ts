import { describe, expect, it } from "bun:test";
import fc from "fast-check";
import { checkAdminToken } from "./admin-token.ts";
import { HttpClient, redactSecrets, ScenarioAbandoned, ScenarioFailure } from "./client.ts";
import {
  expectEqual,
  expectErrorBody,
  expectStatus,
  expectTrue,
  isNonEmptyString,
  jsonArray,
  jsonField,
  jsonObject,
} from "./expect.ts";
import { buildJsonReport, buildJunitXml } from "./report.ts";
import { runScenarios, type ScenarioResult, selectScenarios, unmatchedSelections } from "./runner.ts";
import { defineScenarios } from "./scenario.ts";
import { inProcessTarget } from "./target.ts";

/** A target that answers every request 200 and remembers the paths it was asked for. */
function recordingTarget(answer: (request: Request) => Response = () => new Response("{}")) {
  const paths: string[] = [];
  const target = inProcessTarget({
    adminToken: "tok",
    handle: (request) => {
      paths.push(new URL(request.url).pathname);
      return answer(request);
    },
  });
  return { target, paths };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("a scenario over its time limit", () => {
  it("is reported as error and sends no request once abandoned, so it cannot disturb the next scenario", async () => {
    const { target, paths } = recordingTarget();
    const scenarios = defineScenarios("demo", [
      {
        title: "[SES-09] keeps moving the clock",
        async run({ base }) {
          for (;;) {
            await base.post("/admin/clock/advance");
            await pause(5);
          }
        },
      },
      { title: "[SES-01] next", run: async ({ base }) => void (await base.get("/next")) },
    ]);
    const results = await runScenarios(scenarios, target, { timeoutMs: 60 });
    expect(results.map((result) => result.outcome)).toEqual(["error", "pass"]);
    expect(results[0]?.message).toContain("did not finish within 60 ms");
    const sentBeforeNext = paths.indexOf("/next");
    await pause(60);
    expect(paths.slice(sentBeforeNext + 1)).toEqual([]);
    expect(paths.filter((path) => path === "/admin/clock/advance").length).toBe(sentBeforeNext);
  });

  it("may still clean up through cleanupBase (its finally blocks), before the next scenario starts; its other requests are refused", async () => {
    const { target, paths } = recordingTarget();
    const scenarios = defineScenarios("demo", [
      {
        title: "[DLE-12] makes data and times out",
        async run({ base, cleanupBase }) {
          try {
            for (;;) {
              await base.post("/made");
              await pause(5);
            }
          } finally {
            await cleanupBase.delete("/made/1");
            await base.delete("/made/2").catch(() => undefined);
            await cleanupBase.delete("/made/3");
          }
        },
      },
      { title: "[SES-01] next", run: async ({ base }) => void (await base.get("/next")) },
    ]);
    const results = await runScenarios(scenarios, target, { timeoutMs: 60 });
    expect(results.map((result) => result.outcome)).toEqual(["error", "pass"]);
    expect(paths.slice(-3)).toEqual(["/made/1", "/made/3", "/next"]);
  });

  it("a cleanup that hangs holds the next scenario up for its cleanup time at most", async () => {
    const target = inProcessTarget({
      adminToken: null,
      handle: (request) =>
        new URL(request.url).pathname === "/hang" ? new Promise<Response>(() => undefined) : new Response("{}"),
    });
    const scenarios = defineScenarios("demo", [
      {
        title: "[DLE-12] hangs, then cleans up",
        async run({ base, cleanupBase }) {
          try {
            await base.get("/hang");
          } finally {
            await cleanupBase.delete("/hang");
          }
        },
      },
    ]);
    const started = performance.now();
    const [result] = await runScenarios(scenarios, target, { timeoutMs: 40, cleanupMs: 80 });
    expect(result?.outcome).toBe("error");
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it("a cleanup request is given up once its own bound has passed", async () => {
    const target = inProcessTarget({ adminToken: null, handle: () => new Promise<Response>(() => undefined) });
    const client = new HttpClient(target, "base", undefined, undefined, 30);
    await expect(client.delete("/made/1")).rejects.toThrow(
      "DELETE /made/1 (http://svc-hub.in-process/made/1) did not answer: no answer within 30 ms",
    );
  });

  it("the client refuses to send once its signal is aborted", async () => {
    const { target, paths } = recordingTarget();
    const controller = new AbortController();
    const client = new HttpClient(target, "base", controller.signal);
    await client.get("/before");
    controller.abort(new Error("abandoned"));
    await expect(client.get("/after")).rejects.toBeInstanceOf(ScenarioAbandoned);
    expect(paths).toEqual(["/before"]);
  });
});

describe("failure messages", () => {
  it("start with the method and path of the request the assertion is about", async () => {
    const { target } = recordingTarget(
      () =>
        new Response('{"returnCode":1401,"message":"no"}', {
          status: 401,
          headers: { "content-type": "application/json" },
        }),
    );
    const answer = await new HttpClient(target, "base").post("/v1/login");
    expect(answer.request).toBe("POST /v1/login");
    expect(() => expectStatus(answer, 200)).toThrow(/^POST \/v1\/login: expected status 200, got 401/);
    expect(() => expectErrorBody(answer, 401, 1402)).toThrow(/^POST \/v1\/login: returnCode: expected 1402, got 1401/);
  });

  it("a failed property says how to replay it with the scenario's own title", async () => {
    const { target } = recordingTarget();
    const scenarios = defineScenarios("demo", [
      {
        title: "[SES-09] a property that fails",
        kind: "property",
        run: (ctx) =>
          ctx.checkProperty(
            fc.property(fc.nat(), (n) => n < 5),
            { numRuns: 100 },
          ),
      },
    ]);
    const [result] = await runScenarios(scenarios, target);
    expect(result?.outcome).toBe("fail");
    expect(result?.message).toContain("--only '[SES-09] a property that fails'");
    expect(result?.message).not.toContain("<this scenario's clause>");
  });
});

describe("the admin token check before a run", () => {
  it("stops a run whose admin token the target refuses, and lets a good one through", async () => {
    const refusing = recordingTarget(() => new Response('{"returnCode":1401}', { status: 401 }));
    const refused = await checkAdminToken(refusing.target);
    expect(refused.ok).toBe(false);
    expect(refused.ok ? "" : refused.reason).toContain("refused the admin token");
    expect(refusing.paths).toEqual(["/admin/wait"]);

    expect(await checkAdminToken(recordingTarget().target)).toEqual({ ok: true });
    // The wait's own timeout: the token was taken, the target is busy.
    expect(
      await checkAdminToken(recordingTarget(() => new Response('{"returnCode":1504}', { status: 504 })).target),
    ).toEqual({ ok: true });
    const missing = await checkAdminToken(recordingTarget(() => new Response("", { status: 404 })).target);
    expect(missing.ok ? "" : missing.reason).toContain("answered 404, not 2xx");
  });

  it("asks nothing when no admin token is given", async () => {
    const { paths } = recordingTarget();
    const target = inProcessTarget({ adminToken: null, handle: () => new Response("{}", { status: 401 }) });
    expect(await checkAdminToken(target)).toEqual({ ok: true });
    expect(paths).toEqual([]);
  });
});

describe("an error says which request was in flight and what came back", () => {
  it("a scenario that breaks on a body names the last request and its answer", async () => {
    const { target } = recordingTarget(() => new Response("{}", { headers: { "content-type": "application/json" } }));
    const scenarios = defineScenarios("demo", [
      {
        title: "[SES-01] reads a field that is not there",
        async run({ base }) {
          const body = (await base.get("/admin/events", { query: { traceId: "t1" } })).json<{ events: unknown[] }>();
          void body.events.length;
        },
      },
    ]);
    const [result] = await runScenarios(scenarios, target);
    expect(result?.outcome).toBe("error");
    expect(result?.message).toContain("TypeError");
    expect(result?.message).toContain(
      'last answer: GET /admin/events?traceId=t1 (http://svc-hub.in-process/admin/events?traceId=t1) answered 200 application/json "{}"',
    );
  });

  it("a request the target does not answer names the method, path and URL", async () => {
    const target = inProcessTarget({ adminToken: null, handle: () => Promise.reject(new Error("Unable to connect")) });
    const scenarios = defineScenarios("demo", [
      { title: "[SES-01] asks", run: async ({ base }) => void (await base.post("/v1/login", { query: { a: 1 } })) },
    ]);
    const [result] = await runScenarios(scenarios, target);
    expect(result?.outcome).toBe("error");
    expect(result?.message).toStartWith(
      "TargetDidNotAnswer: POST /v1/login?a=1 (http://svc-hub.in-process/v1/login?a=1) did not answer: Unable to connect",
    );
  });

  it("a time limit names the request still in flight and the last answer", async () => {
    const target = inProcessTarget({
      adminToken: null,
      handle: (request) =>
        new URL(request.url).pathname === "/slow"
          ? new Promise<Response>(() => undefined)
          : new Response("ok", { status: 201 }),
    });
    const scenarios = defineScenarios("demo", [
      {
        title: "[SES-01] waits forever",
        async run({ base }) {
          await base.get("/fast");
          await base.get("/slow");
        },
      },
    ]);
    const [result] = await runScenarios(scenarios, target, { timeoutMs: 50, cleanupMs: 20 });
    expect(result?.outcome).toBe("error");
    expect(result?.message).toContain("did not finish within 50 ms");
    expect(result?.message).toContain("in flight: GET /slow (http://svc-hub.in-process/slow)");
    expect(result?.message).toContain('last answer: GET /fast (http://svc-hub.in-process/fast) answered 201 "ok"');
  });

  it("a failure whose message does not name a request gets the last answer added; one that does is left as it is", async () => {
    const { target } = recordingTarget(
      () => new Response('{"status":"WRONG"}', { headers: { "content-type": "application/json" } }),
    );
    const scenarios = defineScenarios("demo", [
      {
        title: "[SES-01] compares without the answer",
        async run({ base }) {
          const status = (await base.get("/readyz")).json<{ status: string }>().status;
          expectEqual(status, "ready", "status");
        },
      },
      {
        title: "[SES-02] compares with the answer",
        async run({ base }) {
          const answer = await base.get("/readyz");
          expectEqual(answer.json<{ status: string }>().status, "ready", "status", answer);
        },
      },
    ]);
    const [bare, named] = await runScenarios(scenarios, target);
    expect(bare?.message).toBe(
      'status: expected "ready", got "WRONG"\nlast answer: GET /readyz (http://svc-hub.in-process/readyz) answered 200 application/json "{\\"status\\":\\"WRONG\\"}"',
    );
    expect(named?.message).toBe(
      'GET /readyz: status: expected "ready", got "WRONG" (answered 200 application/json "{\\"status\\":\\"WRONG\\"}")',
    );
  });
});

describe("what a failure shows of the request and the answer", () => {
  const client = (answer: () => Response) =>
    new HttpClient(inProcessTarget({ adminToken: null, handle: answer }), "collect");

  it("a collection refusal shows its X-Error and Retry-After; a GIF is described by its type and size, not dumped", async () => {
    const limited = await client(
      () => new Response(null, { status: 429, headers: { "x-error": "Rate limit exceeded", "retry-after": "1" } }),
    ).get("/event", { query: { svc_account: "acme" } });
    expect(() => expectStatus(limited, 200)).toThrow(
      'GET /event?svc_account=acme: expected status 200, got 429 X-Error: "Rate limit exceeded" Retry-After: "1" (empty body)',
    );
    const gif = new Uint8Array(43).fill(0x47);
    const pixel = await client(() => new Response(gif, { headers: { "content-type": "image/gif" } })).get("/event", {
      query: { svc_account: "acme", svc_profile: "" },
    });
    expect(() => expectStatus(pixel, 400)).toThrow(
      "GET /event?svc_account=acme&svc_profile=: expected status 400, got 200 image/gif (43 bytes)",
    );
    expect(() => expectTrue(pixel.bytes.byteLength === 0, "the body of a refusal must be empty", pixel)).toThrow(
      "(answered 200 image/gif (43 bytes))",
    );
  });

  it("a returnCode that differs shows the answer's message", async () => {
    const answer = await client(
      () =>
        new Response('{"returnCode":1400,"message":"Invalid by: missing."}', {
          status: 401,
          headers: { "content-type": "application/json" },
        }),
    ).post("/v1/login");
    expect(() => expectErrorBody(answer, 401, 1401)).toThrow(
      'POST /v1/login: returnCode: expected 1401, got 1400 with message "Invalid by: missing."',
    );
  });

  it("a failure naming the method and path but not the query gets the request's whole URL added; the utk is redacted everywhere", async () => {
    const { target } = recordingTarget(
      () =>
        new Response('{"status":"WRONG","utk":"secret-utk-in-a-body"}', {
          status: 500,
          headers: { "content-type": "application/json" },
        }),
    );
    const scenarios = defineScenarios("demo", [
      {
        title: "[DLE-04] names the path only",
        async run({ base }) {
          const answer = await base.get("/v1/dle/accounts/acme/profiles/main/datalayers/x", {
            query: { utk: "secret-utk-value", probe: "a b" },
          });
          if (answer.status !== 200)
            throw new ScenarioFailure(`GET /v1/dle/accounts/acme/profiles/main/datalayers/x: expected 200`);
        },
      },
    ]);
    const [result] = await runScenarios(scenarios, target);
    expect(result?.message).toBe(
      "GET /v1/dle/accounts/acme/profiles/main/datalayers/x: expected 200\n" +
        'last answer: GET /v1/dle/accounts/acme/profiles/main/datalayers/x?utk=[redacted]&probe=a+b (http://svc-hub.in-process/v1/dle/accounts/acme/profiles/main/datalayers/x?utk=[redacted]&probe=a+b) answered 500 application/json "{\\"status\\":\\"WRONG\\",\\"utk\\":\\"[redacted]\\"}"',
    );
    const info = {
      target: "t",
      implementation: null,
      suiteVersion: "0",
      startedAt: "2026-01-01T00:00:00.000Z",
      durationMs: 1,
      propertySeed: 1,
      propertyRuns: null,
    };
    for (const report of [
      JSON.stringify(buildJsonReport(info, [result as ScenarioResult])),
      buildJunitXml(info, [result as ScenarioResult]),
    ]) {
      expect(report).not.toContain("secret-utk");
    }
  });
});

describe("redactSecrets", () => {
  it("hides the session cookie's value and a bearer token, and keeps a challenge's parameters", () => {
    expect(redactSecrets("Set-Cookie: JSESSIONID=abc123; Path=/; HttpOnly")).toBe(
      "Set-Cookie: JSESSIONID=[redacted]; Path=/; HttpOnly",
    );
    expect(redactSecrets('{"cookie":"jsessionid=xyz"}')).toBe('{"cookie":"jsessionid=[redacted]"}');
    expect(redactSecrets("authorization: Bearer eyJhbGciOi.payload.sig")).toBe("authorization: Bearer [redacted]");
    expect(redactSecrets("Bearer padded-token==")).toBe("Bearer [redacted]");
    // Prose is left alone: "a bearer token", "the Bearer token below".
    expect(redactSecrets("needs a bearer token; the Bearer token\nwas refused")).toBe(
      "needs a bearer token; the Bearer token\nwas refused",
    );
    expect(redactSecrets('WWW-Authenticate: Bearer realm="svc", error="invalid_token"')).toBe(
      'WWW-Authenticate: Bearer realm="svc", error="invalid_token"',
    );
    const once = redactSecrets("JSESSIONID=a; Bearer b; /x?utk=c");
    expect(redactSecrets(once)).toBe(once);
  });
});

describe("assertions about an answer", () => {
  const answerOf = async (body: string, status = 200, type = "application/json") =>
    new HttpClient(
      inProcessTarget({
        adminToken: null,
        handle: () => new Response(body, { status, headers: { "content-type": type } }),
      }),
      "base",
    ).get("/thing");

  it("jsonObject and jsonArray fail (not break) on another shape, naming the request and the body", async () => {
    for (const body of ["null", "[1]", '"text"']) {
      const answer = await answerOf(body);
      expect(() => jsonObject(answer)).toThrow(ScenarioFailure);
    }
    const array = await answerOf("[1]");
    expect(() => jsonObject(array)).toThrow(
      new ScenarioFailure('GET /thing: expected a JSON object (answered 200 application/json "[1]")'),
    );
    const object = await answerOf("{}");
    expect(() => jsonArray(object)).toThrow(
      new ScenarioFailure('GET /thing: expected a JSON array (answered 200 application/json "{}")'),
    );
    const html = await answerOf("<html>", 502, "text/html");
    expect(() => jsonObject(html)).toThrow('GET /thing: expected a JSON body, got 502 text/html "<html>"');
    const token = await answerOf('{"token":1}');
    expect(() => jsonField(token, "token", isNonEmptyString, "a non-empty string")).toThrow(
      "GET /thing: expected token to be a non-empty string, got 1",
    );
  });

  it("expectStatus takes one status or several; expectTrue with the answer names it", async () => {
    const answer = await answerOf("", 404, "text/plain");
    expect(() => expectStatus(answer, [200, 204])).toThrow("GET /thing: expected status 200 or 204, got 404");
    expect(() => expectTrue(false, "preflight allowed", answer)).toThrow(
      "GET /thing: preflight allowed (answered 404 text/plain (empty body))",
    );
    expect(() => expectTrue(false, "plain")).toThrow(new ScenarioFailure("plain"));
  });
});

describe("--only values", () => {
  const scenarios = defineScenarios("session", [
    { title: "[SES-01, DEC-GEN-05] one", run: async () => undefined },
    { title: "[DLE-ERR-05] two", run: async () => undefined },
  ]);

  it("match IDs and ID prefixes in any case, areas in any case, and whole titles exactly", () => {
    expect(selectScenarios(scenarios, ["ses-01"]).map((scenario) => scenario.title)).toEqual([
      "[SES-01, DEC-GEN-05] one",
    ]);
    expect(selectScenarios(scenarios, ["dec-gen"]).length).toBe(1);
    expect(selectScenarios(scenarios, ["dle-err"]).length).toBe(1);
    expect(selectScenarios(scenarios, ["Session"]).length).toBe(2);
    expect(selectScenarios(scenarios, ["[DLE-ERR-05] two"]).length).toBe(1);
    expect(selectScenarios(scenarios, ["[dle-err-05] two"]).length).toBe(0);
  });

  it("each value that selects nothing is named, even when another value selects something", () => {
    expect(unmatchedSelections(scenarios, ["SES-01", "SES-99", "DLE-ERR-5", "dle"])).toEqual(["SES-99", "DLE-ERR-5"]);
    expect(unmatchedSelections(scenarios, undefined)).toEqual([]);
  });
});
