import type { HttpAnswer } from "../harness/client.ts";
import {
  expectErrorBody,
  expectHeader,
  expectStatus,
  isNonEmptyString,
  jsonArray,
  jsonField,
} from "../harness/expect.ts";
import { defineScenarios, type ScenarioContext } from "../harness/scenario.ts";
import { loginV1 } from "../harness/sessions.ts";

/**
 * Answers of every management API (DEC-GEN-05: "every management response"), successes and refusals alike:
 * health, an unknown path, the session, the hosted data layer, revisions (list, details, bundle), file status
 * (v1 and v2) and visitor privacy, with the token call of v2.
 */
async function askEveryManagementApi(ctx: ScenarioContext): Promise<HttpAnswer[]> {
  const { base, fixtures } = ctx;
  const [account, profile] = [encodeURIComponent(fixtures.account), encodeURIComponent(fixtures.profile)];
  const answers: HttpAnswer[] = [await base.get("/healthz"), await base.get("/v1/no-such-api")];
  const login = await base.post("/v1/login", {
    form: { username: fixtures.user.email, password: fixtures.user.password },
  });
  answers.push(login);
  const session = await loginV1(ctx);
  const v1 = { headers: session.headers, query: session.query };
  const dataLayers = `/v1/dle/accounts/${account}/profiles/${profile}/datalayers`;
  answers.push(
    await base.get(dataLayers, v1),
    await base.get(`${dataLayers}/${ctx.uniqueId("never")}`, v1),
    await base.get(dataLayers),
  );
  const revisions = `/v1/accounts/${account}/${profile}/revisions`;
  const list = await base.get(revisions, v1);
  answers.push(list);
  const newest = list.status === 200 ? jsonArray(list)[0] : undefined;
  if (typeof newest === "string") {
    // The bundle answers 200, or 400 or 404 when the newest revision is not on this target: each is a management answer.
    answers.push(
      await base.get(`${revisions}/${newest}/details`, v1),
      await base.get(`${revisions}/${newest}/${encodeURIComponent(fixtures.revision.target)}`, v1),
    );
  }
  const unknownFile = `${fixtures.fileDefinition.prefix}_${ctx.uniqueId("none")}.csv`;
  answers.push(await base.get(`/v1/omnichannel/accounts/${account}/profiles/${profile}/files/${unknownFile}`, v1));
  const auth = await base.post("/v2/auth", { form: { username: fixtures.user.email, key: fixtures.user.apiKey } });
  answers.push(auth);
  expectStatus(auth, 200);
  const bearer = {
    headers: { authorization: `Bearer ${jsonField(auth, "token", isNonEmptyString, "a non-empty string")}` },
  };
  answers.push(await base.get(`/v2/omnichannel/accounts/${account}/profiles/${profile}/files/${unknownFile}`, bearer));
  const privacy = `/v2/visitor/accounts/${account}/profiles/${profile}`;
  answers.push(
    await base.get(`${privacy}/ids`, bearer),
    await base.get(`${privacy}/transactions/${ctx.uniqueId("none")}`, bearer),
    await base.get(`${privacy}/ids`),
  );
  return answers;
}

/** DEC-GEN-*: what every management answer has in common. */
export const generalScenarios = defineScenarios("general", [
  {
    title: "[DEC-GEN-01, DLE-ERR-09] an error answer of the management APIs is a JSON {returnCode, message} body",
    async run({ base }) {
      expectErrorBody(await base.get("/v1/no-such-api/anywhere"), 404);
    },
  },
  {
    title:
      "[DEC-GEN-01] a malformed JSON body is answered 400 1400 in the catalogue's shape, never the framework's text",
    needs: ["test-clock"],
    async run({ base, clockHeaders }) {
      const answer = await base.put("/admin/clock", {
        headers: { ...clockHeaders(), "content-type": "application/json" },
        body: '{"now": ',
      });
      expectErrorBody(answer, 400, 1400);
    },
  },
  {
    title:
      "[DEC-GEN-05] management answers carry X-Version, X-NodeId and Cache-Control no-cache, no-store, must-revalidate: session, data layer, revisions, file status and privacy, successes and refusals",
    async run(ctx) {
      for (const answer of await askEveryManagementApi(ctx)) {
        expectHeader(answer, "x-version", /\S/);
        expectHeader(answer, "x-nodeid", /\S/);
        expectHeader(answer, "cache-control", "no-cache, no-store, must-revalidate");
      }
    },
  },
  {
    title: "[DEC-GEN-06] a trailing slash and unknown query parameters (_ and cb) are tolerated",
    async run({ base }) {
      expectStatus(await base.get("/healthz/"), 200);
      expectStatus(await base.get("/healthz", { query: { _: "1700000000000", cb: "abc123" } }), 200);
    },
  },
]);
