import { expectErrorBody, expectHeader, expectStatus } from "../harness/expect.ts";
import { defineScenarios } from "../harness/scenario.ts";

/** DEC-GEN-*: what every management answer has in common. */
export const generalScenarios = defineScenarios("general", [
  {
    title: "[DEC-GEN-01, DLE-ERR-09] an error answer of the management APIs is a JSON {returnCode, message} body",
    async run({ base }) {
      expectErrorBody(await base.get("/v1/no-such-api/anywhere"), 404);
    },
  },
  {
    title: "[DEC-GEN-01] a malformed JSON body is answered 400 1400 in the catalogue's shape, never the framework's text",
    needs: ["admin"],
    async run({ base, adminHeaders }) {
      const answer = await base.put("/admin/clock", {
        headers: { ...adminHeaders(), "content-type": "application/json" },
        body: '{"now": ',
      });
      expectErrorBody(answer, 400, 1400);
    },
  },
  {
    title: "[DEC-GEN-05] management answers carry X-Version, X-NodeId and Cache-Control no-cache, no-store, must-revalidate",
    async run({ base }) {
      for (const answer of [await base.get("/healthz"), await base.get("/v1/no-such-api")]) {
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
