import { describe, expect, it } from "bun:test";
import fc from "fast-check";
import { checkAdminToken } from "./admin-token.ts";
import { HttpClient, ScenarioAbandoned } from "./client.ts";
import { expectErrorBody, expectStatus } from "./expect.ts";
import { runScenarios } from "./runner.ts";
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
    const { target } = recordingTarget(() => new Response('{"returnCode":1401,"message":"no"}', { status: 401, headers: { "content-type": "application/json" } }));
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
        run: (ctx) => ctx.checkProperty(fc.property(fc.nat(), (n) => n < 5), { numRuns: 100 }),
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
    expect(refusing.paths).toEqual(["/admin/clock"]);

    expect(await checkAdminToken(recordingTarget().target)).toEqual({ ok: true });
  });

  it("asks nothing when no admin token is given", async () => {
    const { paths } = recordingTarget();
    const target = inProcessTarget({ adminToken: null, handle: () => new Response("{}", { status: 401 }) });
    expect(await checkAdminToken(target)).toEqual({ ok: true });
    expect(paths).toEqual([]);
  });
});
