/**
 * Scenarios that must be able to fail: svc-hub in-process behind a wrapper that breaks one behaviour at a time
 * (a wait that does not wait, a data layer answer without X-Version, bots counted by the rate limit), each
 * failing the scenario that checks it; and behaviours the interface leaves open (the order of the data layer
 * checks, the wording of an admin publish refusal) answered another way than svc-hub's, which must still pass.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import {
  type InProcessService,
  openInProcessTarget,
} from "../conformance/implementations/svc-hub/in-process-target.ts";
import { allScenarios } from "../conformance/index.ts";
import { runScenarios } from "./runner.ts";
import type { Scenario } from "./scenario.ts";
import { inProcessTarget, type Target } from "./target.ts";

let svcHub: InProcessService;
beforeAll(async () => {
  svcHub = await openInProcessTarget();
});
afterAll(() => svcHub.close());

/** svc-hub, except for the requests `breaking` answers itself (it may ask svc-hub first). */
function brokenSvcHub(
  breaking: (request: Request, app: (request: Request) => Promise<Response>) => Promise<Response | undefined>,
): Target {
  const app = async (request: Request) => svcHub.service.app.handle(request);
  return inProcessTarget({
    adminToken: svcHub.target.adminToken,
    handle: async (request) => (await breaking(request, app)) ?? app(request),
  });
}

function scenario(titleStart: string): Scenario {
  const found = allScenarios.find((entry) => entry.title.startsWith(titleStart));
  if (!found) throw new Error(`no scenario starts with ${titleStart}`);
  return found;
}

const json = (body: unknown, status: number) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

describe("a behaviour broken in svc-hub fails the scenario that checks it", () => {
  it("a POST /admin/wait that answers at once, without waiting, fails both wait scenarios, though a poll would pass them", async () => {
    const target = brokenSvcHub(async (request) =>
      new URL(request.url).pathname === "/admin/wait" ? json({ complete: true }, 200) : undefined,
    );
    const waits = allScenarios.filter((entry) => entry.title.includes("once POST /admin/wait has returned"));
    expect(waits.length).toBe(2);
    const results = await runScenarios(waits, target);
    expect(results.map((result) => result.outcome)).toEqual(["fail", "fail"]);
    expect(results[0]?.message).toContain("Lifetime event count right after the wait: expected 25, got");
    expect(results[1]?.message).toContain('the file\'s last state right after the wait: expected "PROCESSED", got');
    expect((await runScenarios(waits, svcHub.target)).map((result) => result.outcome)).toEqual(["pass", "pass"]);
  }, 30_000);

  it("answers of the data layer API without X-Version fail DEC-GEN-05, naming the request", async () => {
    const target = brokenSvcHub(async (request, app) => {
      if (!new URL(request.url).pathname.startsWith("/v1/dle/")) return undefined;
      const answer = await app(request);
      const headers = new Headers(answer.headers);
      headers.delete("x-version");
      return new Response(await answer.arrayBuffer(), { status: answer.status, headers });
    });
    const [result] = await runScenarios([scenario("[DEC-GEN-05]")], target);
    expect(result?.outcome).toBe("fail");
    expect(result?.message).toStartWith(
      "GET /v1/dle/accounts/acme/profiles/main/datalayers?utk=[redacted]: expected header x-version, it is missing",
    );
  });

  it("a rate limit that counts bots fails COL-15: the events right after 100 bots are refused", async () => {
    // Bots reach svc-hub as ordinary clients, so they are counted (and stored) like any event.
    const target = brokenSvcHub(async (request, app) => {
      if (new URL(request.url).pathname !== "/event" || !/bot/i.test(request.headers.get("user-agent") ?? ""))
        return undefined;
      const headers = new Headers(request.headers);
      headers.set("user-agent", "curl/8.5.0");
      return app(new Request(request.url, { method: request.method, headers }));
    });
    const [result] = await runScenarios([scenario("[COL-15, DEC-COL-07, DEC-COL-06]")], target);
    expect(result?.outcome).toBe("fail");
    expect(result?.message).toContain(
      "events were accepted right after 100 bots: the bots were counted towards the limit",
    );
    const [unbroken] = await runScenarios([scenario("[COL-15, DEC-COL-07, DEC-COL-06]")], svcHub.target);
    expect(unbroken?.outcome).toBe("pass");
  }, 30_000);
});

describe("a behaviour the interface leaves open, answered otherwise than svc-hub does, passes", () => {
  it("the data layer model accepts a body with a period in a key checked after the dl_id's existence (405 or 404 first, not 400)", async () => {
    const hasPeriodKey = (value: unknown): boolean =>
      value !== null &&
      typeof value === "object" &&
      (Array.isArray(value)
        ? value.some(hasPeriodKey)
        : Object.entries(value).some(([key, child]) => key.includes(".") || hasPeriodKey(child)));
    let reordered = 0;
    const target = brokenSvcHub(async (request, app) => {
      const url = new URL(request.url);
      const match = /^(\/v1\/dle\/accounts\/[^/]+\/profiles\/[^/]+\/datalayers)\/([^/]+)$/.exec(url.pathname);
      if (!match || (request.method !== "POST" && request.method !== "PUT")) return undefined;
      const text = await request.clone().text();
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return undefined;
      }
      if (!hasPeriodKey(body)) return undefined;
      // Existence first: ask svc-hub's list with the caller's session.
      const listed = await app(
        new Request(`${url.origin}${match[1]}${url.search}`, {
          headers: { cookie: request.headers.get("cookie") ?? "" },
        }),
      );
      const names = (await listed.json()) as string[];
      const dlId = decodeURIComponent(match[2] as string);
      if (request.method === "POST" && names.includes(dlId)) {
        reordered += 1;
        return json(
          { returnCode: 1464, message: "Resource already exists. Updates are not permitted via this type of request." },
          405,
        );
      }
      if (request.method === "PUT" && !names.includes(dlId)) {
        reordered += 1;
        const [account, profile] = [url.pathname.split("/")[4], url.pathname.split("/")[6]];
        return json(
          {
            returnCode: 1404,
            message: `Could not locate data layer for supplied params (${account}/${profile}/${dlId}).`,
          },
          404,
        );
      }
      return undefined;
    });
    const [result] = await runScenarios(
      [scenario("[DLE-01, DLE-02, DLE-03, DLE-04, DLE-05, DLE-07, DLE-08, DLE-10, DLE-11, DEC-DLE-05")],
      target,
    );
    expect(result?.message ?? "").toBe("");
    expect(result?.outcome).toBe("pass");
    // The run met the case, or the test proves nothing.
    expect(reordered).toBeGreaterThan(0);
  }, 60_000);

  it("an admin publish refused with 400 in words of its own (not svc-hub's) passes", async () => {
    const target = brokenSvcHub(async (request, app) => {
      if (!/^\/admin\/accounts\/[^/]+\/profiles\/[^/]+\/revisions$/.test(new URL(request.url).pathname))
        return undefined;
      const answer = await app(request);
      return answer.status === 400 ? json({ error: "refused" }, 400) : answer;
    });
    const [result] = await runScenarios([scenario("[DEC-REV-01, DEC-REV-02, DEC-OPS-04] publishing refuses")], target);
    expect(result?.message ?? "").toBe("");
    expect(result?.outcome).toBe("pass");
  });
});
