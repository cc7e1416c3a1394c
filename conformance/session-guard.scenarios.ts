import { expectErrorBody, expectStatus } from "../harness/expect.ts";
import { defineScenarios, type ScenarioContext } from "../harness/scenario.ts";
import { loginV1, type V1Session } from "../harness/sessions.ts";
import { advanceClock } from "./admin-support.ts";
import { DataLayerApi, expectPending, permissionWording } from "./datalayer-support.ts";

/** A v1 data route (the data layer list of the fixtures' account and profile), called with what is given. */
function listWith(ctx: ScenarioContext, options: { headers?: Record<string, string>; query?: Record<string, string> }) {
  return ctx.base.get(`/v1/dle/accounts/${ctx.fixtures.account}/profiles/${ctx.fixtures.profile}/datalayers`, options);
}

function listAs(ctx: ScenarioContext, session: V1Session) {
  return listWith(ctx, { headers: session.headers, query: session.query });
}

/** A user of the target's own, made through the admin route POST /admin/users (needs "user-admin"). */
async function makeUser(ctx: ScenarioContext, grants: unknown[]): Promise<{ email: string; password: string }> {
  const email = `${ctx.uniqueId("guard").toLowerCase()}@example.com`;
  const password = `pw-${ctx.uniqueId("secret")}`;
  expectStatus(
    await ctx.base.post("/admin/users", {
      headers: ctx.capabilityHeaders("user-admin"),
      json: { email, password, grants },
    }),
    201,
  );
  return { email, password };
}

/** Every operation of the data layer API on `api`'s account and profile answers 401 1469 (DEC-GEN-03). */
async function expectDeniedEverywhere(api: DataLayerApi, dlId: string): Promise<void> {
  const denied = (answer: Parameters<typeof expectErrorBody>[0]) =>
    expectErrorBody(answer, 401, 1469, permissionWording);
  denied(await api.list());
  denied(await api.status(dlId));
  denied(await api.upload(dlId, { json: { a: 1 } }));
  denied(await api.update(dlId, { json: { a: 1 } }));
  denied(await api.remove(dlId));
}

/** SES-07, SES-11, SES-12, AUT-03, DLE-ERR-04: the v1 session guard, on a v1 data route. */
export const sessionGuardScenarios = defineScenarios("session", [
  {
    title:
      "[SES-07, DLE-06, DEC-GEN-02, DEC-SES-02] a v1 call needs the cookie and the utk of one session: either alone, or the utk of another session, is 401 1401",
    async run(ctx) {
      const first = await loginV1(ctx);
      const second = await loginV1(ctx);
      expectStatus(await listAs(ctx, first), 200);
      expectErrorBody(await listWith(ctx, { headers: first.headers }), 401, 1401, "Authentication Failed");
      expectErrorBody(await listWith(ctx, { query: first.query }), 401, 1401, "Authentication Failed");
      expectErrorBody(
        await listWith(ctx, { headers: first.headers, query: second.query }),
        401,
        1401,
        "Authentication Failed",
      );
      expectErrorBody(
        await listWith(ctx, { headers: second.headers, query: first.query }),
        401,
        1401,
        "Authentication Failed",
      );
      expectErrorBody(
        await listWith(ctx, { headers: { cookie: "JSESSIONID=not-a-session" }, query: first.query }),
        401,
        1401,
        "Authentication Failed",
      );
      expectStatus(await listAs(ctx, second), 200);
    },
  },
  {
    // DEC-GEN-02 refuses invalid credentials as well as missing ones: the scenario above pairs a real cookie with a
    // real utk of another session; here one or both are made up.
    title:
      "[SES-07, DEC-GEN-02] a v1 call with a made-up cookie and a made-up utk, or a real cookie with a made-up utk, is 401 1401",
    async run(ctx) {
      const session = await loginV1(ctx);
      const madeUpCookie = { cookie: `JSESSIONID=${"0".repeat(32)}` };
      const madeUpUtk = { utk: "f".repeat(32) };
      for (const [headers, query] of [
        [madeUpCookie, madeUpUtk],
        [session.headers, madeUpUtk],
        [session.headers, { utk: "" }],
      ] as const)
        expectErrorBody(await listWith(ctx, { headers, query }), 401, 1401, "Authentication Failed");
      expectStatus(await listAs(ctx, session), 200);
    },
  },
  {
    title: "[SES-11] after POST /v1/logout with the cookie only, the session and its utk stop working",
    async run(ctx) {
      const session = await loginV1(ctx);
      const other = await loginV1(ctx);
      expectStatus(await listAs(ctx, session), 200);
      expectStatus(
        await ctx.base.post("/v1/logout", {
          headers: { ...session.headers, "content-type": "application/x-www-form-urlencoded" },
        }),
        200,
      );
      expectErrorBody(await listAs(ctx, session), 401, 1401, "Authentication Failed");
      expectErrorBody(
        await listWith(ctx, { headers: other.headers, query: session.query }),
        401,
        1401,
        "Authentication Failed",
      );
      expectStatus(await listAs(ctx, other), 200);
    },
  },
  {
    title:
      "[SES-12, DEC-SES-02] a session unused for 30 minutes on the virtual clock ends; one used within 30 minutes goes on",
    needs: ["test-clock"],
    async run(ctx) {
      const session = await loginV1(ctx);
      await advanceClock(ctx, "29m");
      expectStatus(await listAs(ctx, session), 200);
      await advanceClock(ctx, "29m");
      expectStatus(await listAs(ctx, session), 200);
      await advanceClock(ctx, "31m");
      expectErrorBody(await listAs(ctx, session), 401, 1401, "Authentication Failed");
    },
  },
  {
    title: "[SES-12, DEC-SES-02] a session in steady use ends 12 hours after the login",
    needs: ["test-clock"],
    async run(ctx) {
      const session = await loginV1(ctx);
      // 28 uses 25 minutes apart: 11 h 40 min after the login, still within both limits.
      for (let use = 1; use <= 28; use += 1) {
        await advanceClock(ctx, "25m");
        expectStatus(await listAs(ctx, session), 200);
      }
      await advanceClock(ctx, "25m");
      expectErrorBody(await listAs(ctx, session), 401, 1401, "Authentication Failed");
    },
  },
  {
    title:
      "[AUT-03, DEC-GEN-03] a user of one account never reads or changes another account's data layers: 401 1469, and nothing changes",
    async run(ctx) {
      const owner = await DataLayerApi.open(ctx);
      const dlId = ctx.uniqueId("dl");
      expectPending(await owner.upload(dlId, { json: { owner: true } }), 201);
      const otherSession = await loginV1(ctx, ctx.fixtures.otherUser);
      await expectDeniedEverywhere(
        new DataLayerApi(ctx, otherSession, ctx.fixtures.account, ctx.fixtures.profile),
        dlId,
      );
      // The denied delete and update changed nothing: the data layer still exists for its owner.
      expectErrorBody(await owner.upload(dlId, { json: { again: true } }), 405, 1464);
      expectStatus(await owner.status(dlId), 200);
      // And the other way round: the user on the other account.
      await expectDeniedEverywhere(
        new DataLayerApi(ctx, owner.session, ctx.fixtures.otherAccount, ctx.fixtures.otherAccountProfile),
        ctx.uniqueId("dl"),
      );
      await owner.cleanUp([dlId]);
    },
  },
  {
    title:
      "[DLE-ERR-04, DEC-GEN-03] a user whose grants exclude the profile gets 401 1469 on every data layer call there, and 200 on the profile granted",
    needs: ["user-admin"],
    async run(ctx) {
      const user = await makeUser(ctx, [{ account: ctx.fixtures.account, profiles: [ctx.fixtures.otherProfile] }]);
      const session = await loginV1(ctx, user);
      await expectDeniedEverywhere(
        new DataLayerApi(ctx, session, ctx.fixtures.account, ctx.fixtures.profile),
        ctx.uniqueId("dl"),
      );
      const granted = new DataLayerApi(ctx, session, ctx.fixtures.account, ctx.fixtures.otherProfile);
      expectStatus(await granted.list(), 200);
      const dlId = ctx.uniqueId("dl");
      expectPending(await granted.upload(dlId, { json: { a: 1 } }), 201);
      await granted.cleanUp([dlId]);
    },
  },
]);
