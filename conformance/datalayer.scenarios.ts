import { gzipSync } from "node:zlib";
import fc from "fast-check";
import type { HttpAnswer, RequestOptions } from "../harness/client.ts";
import {
  expectEqual,
  expectErrorBody,
  expectHeader,
  expectStatus,
  expectTrue,
  fail,
  jsonArray,
  jsonObject,
} from "../harness/expect.ts";
import { defineScenarios, type ScenarioContext } from "../harness/scenario.ts";
import { advanceClock, readClock, waitForBackgroundWork } from "./admin-support.ts";
import {
  alreadyExistsMessage,
  DataLayerApi,
  expectInvalid,
  expectPending,
  listTooLargeMessage,
  nestedBody,
  notFoundMessage,
  publishPending,
  statusOf,
  statusUnavailableMessage,
} from "./datalayer-support.ts";

const mebibyte = 1_048_576;
const minuteMs = 60_000;
const dayMs = 86_400_000;

/** Moves the test clock forward to `targetMs` (it keeps flowing at the real pace, so it is read first). */
async function advanceClockTo(ctx: ScenarioContext, targetMs: number): Promise<void> {
  const { nowMs } = await readClock(ctx);
  if (targetMs > nowMs) await advanceClock(ctx, String(targetMs - nowMs));
}

/** A JSON object whose serialised form is exactly `bytes` long: `{"pad":"xxx..."}`. */
function bodyOfSize(bytes: number): string {
  const frame = '{"pad":""}'.length;
  return `{"pad":"${"x".repeat(bytes - frame)}"}`;
}

/** The object a served `.js` assigns, found by running it against a stand-in `window`. */
function runServedScript(script: string, dlId: string): unknown {
  const window: Record<string, unknown> = { utag: { keep: true } };
  try {
    new Function("window", script)(window);
  } catch (error) {
    fail(`the served script does not run: ${error instanceof Error ? error.message : String(error)}`);
  }
  const utag = window.utag as { keep?: boolean; globals?: { dle?: { enrichments?: Record<string, unknown> } } };
  expectEqual(utag.keep, true, "the script keeps what window.utag held");
  const enrichments = utag.globals?.dle?.enrichments;
  expectTrue(
    enrichments !== undefined && Object.hasOwn(enrichments, dlId),
    `the script must assign window.utag.globals.dle.enrichments["${dlId}"]`,
  );
  return enrichments[dlId];
}

/** DEC-DLE-07: both served forms answer the object, without credentials, with Access-Control-Allow-Origin: *. */
async function expectServed(api: DataLayerApi, dlId: string, expectedText: string): Promise<void> {
  const json = await api.served(dlId, "json");
  expectStatus(json, 200);
  expectHeader(json, "content-type", /^application\/json\b/);
  expectHeader(json, "access-control-allow-origin", "*");
  expectEqual(json.text, expectedText, `${dlId}.json`);
  const js = await api.served(dlId, "js");
  expectStatus(js, 200);
  expectHeader(js, "content-type", /javascript/);
  expectHeader(js, "access-control-allow-origin", "*");
  expectEqual(
    JSON.stringify(runServedScript(js.text, dlId)),
    JSON.stringify(JSON.parse(expectedText)),
    `the object ${dlId}.js assigns`,
  );
}

async function expectNotServed(api: DataLayerApi, dlId: string): Promise<void> {
  for (const format of ["json", "js"] as const) {
    const answer = await api.served(dlId, format);
    expectEqual(answer.status, 404, `GET /dle/.../${dlId}.${format} status`);
  }
}

/** The names of the list answer, which must be strings in code-unit order without repeats (DEC-DLE-09). */
async function listed(api: DataLayerApi): Promise<string[]> {
  const answer = await api.list();
  expectStatus(answer, 200);
  const names = jsonArray(answer);
  expectTrue(
    names.every((name) => typeof name === "string"),
    "the list must be a JSON array of strings",
    answer,
  );
  const sorted = [...(names as string[])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  expectEqual(names, sorted, "the list is in code-unit order", answer);
  expectEqual(new Set(names as string[]).size, (names as string[]).length, "names in the list are unique", answer);
  return names as string[];
}

/** Runs `work` on `items` with at most `width` calls at once (big set-ups over a real socket). */
async function inBatches<T>(items: readonly T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  for (let start = 0; start < items.length; start += width)
    await Promise.all(items.slice(start, start + width).map(work));
}

/** DLE-*, DEC-DLE-*: the hosted data layer API (v1) and the serving of published data layers. */
export const dataLayerScenarios = defineScenarios("datalayer", [
  {
    title: '[DLE-01, DLE-06] upload of a JSON object with the session cookie and utk answers 201 {status: "pending"}',
    async run(ctx) {
      const api = await DataLayerApi.open(ctx);
      const dlId = ctx.uniqueId("dl");
      expectPending(await api.upload(dlId, { json: { page: { type: "home" }, items: [1, 2, 3] } }), 201);
      await api.cleanUp([dlId]);
    },
  },
  {
    title: "[DLE-06, DEC-GEN-02] every data layer call without the session cookie or without the utk is 401 1401",
    async run(ctx) {
      const api = await DataLayerApi.open(ctx);
      const dlId = ctx.uniqueId("dl");
      await api.uploaded(dlId, { a: 1 });
      const json: RequestOptions = { body: '{"a":2}', headers: { "content-type": "application/json" } };
      const calls: Array<[string, string, RequestOptions]> = [
        ["POST", api.path(ctx.uniqueId("dl")), json],
        ["PUT", api.path(dlId), json],
        ["DELETE", api.path(dlId), {}],
        ["GET", api.path(dlId), {}],
        ["GET", api.path(), {}],
      ];
      for (const [method, path, extra] of calls) {
        const onlyUtk = await ctx.base.request(method, path, { ...extra, query: api.session.query });
        expectErrorBody(onlyUtk, 401, 1401, "Authentication Failed");
        const onlyCookie = await ctx.base.request(method, path, {
          ...extra,
          headers: { ...extra.headers, ...api.session.headers },
        });
        expectErrorBody(onlyCookie, 401, 1401, "Authentication Failed");
      }
      // The refused delete changed nothing: the dl_id still exists.
      expectErrorBody(await api.upload(dlId, { json: { a: 3 } }), 405, 1464, alreadyExistsMessage);
      await api.cleanUp([dlId]);
    },
  },
  {
    title: '[DLE-02] update of an existing dl_id with PUT answers 200 {status: "pending"}',
    async run(ctx) {
      const api = await DataLayerApi.open(ctx);
      const dlId = ctx.uniqueId("dl");
      await api.uploaded(dlId, { version: 1 });
      expectPending(await api.update(dlId, { json: { version: 2 } }), 200);
      await api.cleanUp([dlId]);
    },
  },
  {
    title: '[DLE-03] delete of an existing dl_id answers 200 {status: "pending"}',
    async run(ctx) {
      const api = await DataLayerApi.open(ctx);
      const dlId = ctx.uniqueId("dl");
      await api.uploaded(dlId, { version: 1 });
      expectPending(await api.remove(dlId), 200);
    },
  },
  {
    title:
      "[DLE-04, DLE-07, LIM-03, DEC-DLE-06] get status reads pending after the upload and completed once the publishing delay has passed",
    needs: ["admin", "test-clock"],
    async run(ctx) {
      const api = await DataLayerApi.open(ctx);
      const dlId = ctx.uniqueId("dl");
      await api.uploaded(dlId, { a: 1 });
      const early = await statusOf(api, dlId);
      // With a short delay the publisher may already be done; it never reads failed or anything else.
      expectTrue(early === "pending" || early === "completed", `status right after the upload: ${early}`);
      await publishPending(ctx, api);
      expectEqual(await statusOf(api, dlId), "completed", "status once published");
      expectPending(await api.update(dlId, { json: { a: 2 } }), 200);
      await publishPending(ctx, api);
      expectEqual(await statusOf(api, dlId), "completed", "status once the update is published");
      await api.cleanUp([dlId]);
    },
  },
  {
    title:
      "[DEC-DLE-07, DLE-07] a completed upload is served without credentials as .json and as a .js assigning window.utag.globals.dle.enrichments[dl_id]",
    needs: ["admin", "test-clock"],
    async run(ctx) {
      const api = await DataLayerApi.open(ctx);
      const dlId = ctx.uniqueId("dl");
      const text = JSON.stringify({
        page: { type: "product", tags: ["a", "b"] },
        price: 12.5,
        html: "</script><b>",
        line: "\u2028",
      });
      expectPending(await api.upload(dlId, { raw: text, headers: { "content-type": "application/json" } }), 201);
      // Served implies completed: whatever the timing, a .json served before the status is read means the
      // status reads completed, so one that reads pending proves nothing was served before it.
      const servedEarly = await api.served(dlId, "json");
      const early = await statusOf(api, dlId);
      if (servedEarly.status === 200) expectEqual(early, "completed", "status of a data layer already served");
      else expectEqual(servedEarly.status, 404, "a data layer not yet published is not served");
      await publishPending(ctx, api);
      await expectServed(api, dlId, text);
      await api.cleanUp([dlId]);
    },
  },
  {
    title:
      "[DEC-DLE-07, DEC-DLE-05] a completed update replaces what is served, and a completed delete stops serving it while its status reads completed",
    needs: ["admin", "test-clock"],
    async run(ctx) {
      const api = await DataLayerApi.open(ctx);
      const dlId = ctx.uniqueId("dl");
      await api.uploaded(dlId, { version: 1 });
      await publishPending(ctx, api);
      await expectServed(api, dlId, '{"version":1}');
      expectPending(await api.update(dlId, { json: { version: 2 } }), 200);
      await publishPending(ctx, api);
      await expectServed(api, dlId, '{"version":2}');
      expectPending(await api.remove(dlId), 200);
      await publishPending(ctx, api);
      await expectNotServed(api, dlId);
      expectEqual(await statusOf(api, dlId), "completed", "status of the completed delete");
    },
  },
  {
    title:
      "[DLE-05, DEC-DLE-09, DEC-GEN-06] list answers the existing data layers in code-unit order; a deleted one leaves it at once",
    async run(ctx) {
      const api = await DataLayerApi.open(ctx);
      const stem = ctx.uniqueId("list");
      const dlIds = [`${stem}_b`, `${stem}_B`, `${stem}_a`, `${stem}-z`, `${stem}~`, `${stem}_0`];
      for (const dlId of dlIds) await api.uploaded(dlId, { dlId });
      const ours = (names: string[]) => names.filter((name) => name.startsWith(stem));
      const expected = [...dlIds].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      expectEqual(ours(await listed(api)), expected, "the data layers of this scenario in the list");
      expectPending(await api.remove(`${stem}_a`), 200);
      expectEqual(
        ours(await listed(api)),
        expected.filter((name) => name !== `${stem}_a`),
        "the list once one is deleted",
      );
      const slashed = await ctx.base.get(`${api.path()}/`, { headers: api.session.headers, query: api.session.query });
      expectStatus(slashed, 200);
      const names = jsonArray(slashed);
      expectTrue(
        names.every((name) => typeof name === "string"),
        "the list must be a JSON array of strings",
        slashed,
      );
      expectEqual(
        [...ours(names as string[])].sort(),
        expected.filter((name) => name !== `${stem}_a`).sort(),
        "the data layers of this scenario in the list asked with a trailing slash",
        slashed,
      );
      await api.cleanUp(dlIds.filter((name) => name !== `${stem}_a`));
    },
  },
  {
    title:
      "[DLE-08, LIM-02, DEC-DLE-08] a status is kept 30 days after its last change, then 404 1404 Status unavailable; the data layer itself stays",
    needs: ["admin", "test-clock"],
    async run(ctx) {
      const api = await DataLayerApi.open(ctx);
      const dlId = ctx.uniqueId("dl");
      // The status settles at a time inside [before, settled]: a minute inside the 30 days counted from the
      // earliest it can have settled, and a minute past them counted from the latest, pins the retention to
      // 30 days within a minute (29.5 or 30.5 days fail one side or the other).
      const before = (await readClock(ctx)).nowMs;
      await api.uploaded(dlId, { kept: true });
      await publishPending(ctx, api);
      const settled = (await readClock(ctx)).nowMs;
      expectEqual(await statusOf(api, dlId), "completed", "status once published");
      await advanceClockTo(ctx, before + 30 * dayMs - minuteMs);
      await waitForBackgroundWork(ctx);
      await api.relogin();
      expectEqual(
        await statusOf(api, dlId),
        "completed",
        "status 30 days minus 1 minute after its last change (LIM-02: kept 30 days)",
      );
      await advanceClockTo(ctx, settled + 30 * dayMs + minuteMs);
      await waitForBackgroundWork(ctx);
      await api.relogin();
      expectErrorBody(await api.status(dlId), 404, 1404, statusUnavailableMessage);
      await expectServed(api, dlId, '{"kept":true}');
      const names = await listed(api);
      expectTrue(
        names.includes(dlId),
        `${dlId} must still be listed; the list: ${JSON.stringify(names).slice(0, 300)}`,
      );
      expectStatus(await api.upload(dlId, { json: { again: true } }), 405);
      expectPending(await api.update(dlId, { json: { kept: "again" } }), 200);
      // pending, or completed already: the clock flows at the real pace, and a busy target may pass the delay.
      const again = await statusOf(api, dlId);
      expectTrue(again === "pending" || again === "completed", `a new change has a status again, got ${again}`);
      await api.cleanUp([dlId]);
    },
  },
  {
    title:
      "[DLE-09, DLE-ERR-09, DEC-GEN-01] get status of a dl_id never uploaded is 404 1404 Status unavailable, as JSON {returnCode, message}",
    async run(ctx) {
      const api = await DataLayerApi.open(ctx);
      const answer = await api.status(ctx.uniqueId("never"));
      expectErrorBody(answer, 404, 1404, statusUnavailableMessage);
      expectEqual(
        Object.keys(expectErrorBody(answer, 404)).sort(),
        ["message", "returnCode"],
        "error body fields",
        answer,
      );
    },
  },
  {
    title:
      "[DLE-10, DEC-DLE-01, DEC-GEN-01] update or delete of an unknown dl_id is 404 1404 naming the real account/profile/dl_id",
    async run(ctx) {
      const api = await DataLayerApi.open(ctx);
      const dlId = ctx.uniqueId("missing");
      const message = notFoundMessage(ctx.fixtures.account, ctx.fixtures.profile, dlId);
      expectErrorBody(await api.update(dlId, { json: { a: 1 } }), 404, 1404, message);
      expectErrorBody(await api.remove(dlId), 404, 1404, message);
      // A delete that was accepted makes the dl_id unknown at once (DEC-DLE-05).
      const deleted = ctx.uniqueId("deleted");
      await api.uploaded(deleted, { a: 1 });
      expectPending(await api.remove(deleted), 200);
      const deletedMessage = notFoundMessage(ctx.fixtures.account, ctx.fixtures.profile, deleted);
      expectErrorBody(await api.update(deleted, { json: { a: 2 } }), 404, 1404, deletedMessage);
      expectErrorBody(await api.remove(deleted), 404, 1404, deletedMessage);
    },
  },
  {
    title:
      "[DLE-11, DEC-DLE-01, DEC-DLE-05] POST on a dl_id that exists, even while its upload is pending, is 405 1464; after a delete it is an upload again",
    async run(ctx) {
      const api = await DataLayerApi.open(ctx);
      const dlId = ctx.uniqueId("dl");
      await api.uploaded(dlId, { a: 1 });
      expectErrorBody(await api.upload(dlId, { json: { a: 2 } }), 405, 1464, alreadyExistsMessage);
      expectPending(await api.update(dlId, { json: { a: 3 } }), 200);
      expectErrorBody(await api.upload(dlId, { json: { a: 4 } }), 405, 1464, alreadyExistsMessage);
      expectPending(await api.remove(dlId), 200);
      expectPending(await api.upload(dlId, { json: { a: 5 } }), 201);
      await api.cleanUp([dlId]);
    },
  },
  {
    title:
      "[DLE-12, DLE-05, LIM-01, DEC-DLE-09] list answers up to 1000 data layers; with 1001 it is 400 1400 with the list message",
    async run(ctx) {
      const api = await DataLayerApi.open(ctx, { profile: ctx.fixtures.otherProfile });
      const already = (await listed(api)).length;
      if (already > 1000)
        fail(
          `${ctx.fixtures.account}/${ctx.fixtures.otherProfile} holds ${already} data layers already; the scenario needs at most 1000`,
        );
      const stem = ctx.uniqueId("cap");
      const dlIds = Array.from({ length: 1001 - already }, (_, index) => `${stem}_${String(index).padStart(4, "0")}`);
      const last = dlIds.pop() as string;
      try {
        await inBatches(dlIds, 25, (dlId) => api.uploaded(dlId, { index: dlId }));
        const full = await listed(api);
        expectEqual(full.length, 1000, "list length with 1000 data layers");
        await api.uploaded(last, { index: last });
        expectErrorBody(await api.list(), 400, 1400, listTooLargeMessage);
        expectPending(await api.remove(last), 200);
        expectEqual((await listed(api)).length, 1000, "list length once one is deleted again");
      } finally {
        await api.cleanUp([...dlIds, last]);
      }
    },
  },
  {
    title:
      "[DLE-ERR-01] a key containing a period, at the top, at depth 3 or in an object inside an array, is 400 1400 on upload and update",
    async run(ctx) {
      const api = await DataLayerApi.open(ctx);
      const existing = ctx.uniqueId("dl");
      await api.uploaded(existing, { value: "with.periods", nested: { "a b": "c.d", list: [{ ok: "x.y" }] } });
      const bodies = [{ "a.b": 1 }, { a: { b: { "c.d": 1 } } }, { a: [1, { b: [{ "c.d": true }] }] }, { ".": null }];
      for (const json of bodies) {
        expectInvalid(await api.upload(ctx.uniqueId("dl"), { json }), `upload of ${JSON.stringify(json)}`);
        expectInvalid(await api.update(existing, { json }), `update with ${JSON.stringify(json)}`);
      }
      await api.cleanUp([existing]);
    },
  },
  {
    title: "[DLE-ERR-02, DEC-DLE-02] account + profile + dl_id of 250 characters is accepted; 251 is 400 1400",
    async run(ctx) {
      const api = await DataLayerApi.open(ctx);
      const room = 250 - ctx.fixtures.account.length - ctx.fixtures.profile.length;
      const stem = ctx.uniqueId("len");
      const fits = stem + "x".repeat(room - stem.length);
      expectPending(await api.upload(fits, { json: { a: 1 } }), 201);
      await statusOf(api, fits);
      const tooLong = `${fits}y`;
      expectInvalid(await api.upload(tooLong, { json: { a: 1 } }), "upload with 251 characters");
      expectInvalid(await api.status(tooLong), "get status with 251 characters");
      expectInvalid(await api.update(tooLong, { json: { a: 1 } }), "update with 251 characters");
      expectInvalid(await api.remove(tooLong), "delete with 251 characters");
      await api.cleanUp([fits]);
    },
  },
  {
    title: "[DLE-ERR-03, DEC-DLE-02] a dl_id with a restricted character is 400 1400; A-Z a-z 0-9 _ - ~ are accepted",
    async run(ctx) {
      const api = await DataLayerApi.open(ctx);
      const restricted = [
        " ",
        "/",
        ":",
        "?",
        "#",
        "[",
        "]",
        "@",
        "!",
        "$",
        "&",
        "'",
        "(",
        ")",
        "*",
        "+",
        ",",
        ";",
        "=",
        "%",
        ".",
        '"',
        "\\",
        "é",
        "\t",
      ];
      for (const char of restricted) {
        const dlId = `${ctx.uniqueId("bad")}${char}x`;
        expectInvalid(await api.upload(dlId, { json: { a: 1 } }), `upload of ${JSON.stringify(dlId)}`);
        expectInvalid(await api.status(dlId), `get status of ${JSON.stringify(dlId)}`);
      }
      // An unencoded "/" in the path is a restricted character too, not another path.
      expectInvalid(
        await api.upload(`${ctx.uniqueId("bad")}/x`, { json: { a: 1 } }, { raw: true }),
        "upload of a dl_id with an unencoded /",
      );
      const allowed = `${ctx.uniqueId("ok")}_ABCXYZ-abcxyz~0189`;
      expectPending(await api.upload(allowed, { json: { a: 1 } }), 201);
      await api.cleanUp([allowed]);
    },
  },
  {
    title:
      "[DLE-ERR-05, DEC-GEN-04] an unknown (mistyped) account or profile is 400 1400 for upload, update, delete, get status and list",
    async run(ctx) {
      const api = await DataLayerApi.open(ctx);
      const dlId = ctx.uniqueId("dl");
      const unknowns = [
        new DataLayerApi(ctx, api.session, ctx.uniqueId("noacct"), ctx.fixtures.profile),
        new DataLayerApi(ctx, api.session, ctx.fixtures.account, ctx.uniqueId("noprof")),
      ];
      for (const unknown of unknowns) {
        const where = `${unknown.account}/${unknown.profile}`;
        expectInvalid(await unknown.upload(dlId, { json: { a: 1 } }), `upload on ${where}`);
        expectInvalid(await unknown.update(dlId, { json: { a: 1 } }), `update on ${where}`);
        expectInvalid(await unknown.remove(dlId), `delete on ${where}`);
        expectInvalid(await unknown.status(dlId), `get status on ${where}`);
        expectInvalid(await unknown.list(), `list on ${where}`);
      }
    },
  },
  {
    title: "[DLE-ERR-06] an empty body is 400 1400 on upload and update",
    async run(ctx) {
      const api = await DataLayerApi.open(ctx);
      const existing = ctx.uniqueId("dl");
      await api.uploaded(existing, { a: 1 });
      const empty = { raw: "", headers: { "content-type": "application/json" } };
      expectInvalid(await api.upload(ctx.uniqueId("dl"), empty), "upload with an empty body");
      expectInvalid(await api.update(existing, empty), "update with an empty body");
      expectInvalid(
        await api.upload(ctx.uniqueId("dl"), { raw: "  \n", headers: { "content-type": "application/json" } }),
        "upload with only whitespace",
      );
      await api.cleanUp([existing]);
    },
  },
  {
    title:
      "[DLE-ERR-07] invalid JSON, or JSON that is not an object (array, string, number, true, null), is 400 1400 on upload and update",
    async run(ctx) {
      const api = await DataLayerApi.open(ctx);
      const existing = ctx.uniqueId("dl");
      await api.uploaded(existing, { a: 1 });
      for (const raw of [
        '{"a":',
        "{'a':1}",
        '{"a":1,}',
        "{} {}",
        "[]",
        '[{"a":1}]',
        '"text"',
        "42",
        "true",
        "null",
        "\u00ff",
      ]) {
        const body = { raw, headers: { "content-type": "application/json" } };
        expectInvalid(await api.upload(ctx.uniqueId("dl"), body), `upload of ${JSON.stringify(raw)}`);
        expectInvalid(await api.update(existing, body), `update with ${JSON.stringify(raw)}`);
      }
      const notUtf8 = {
        raw: new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
        headers: { "content-type": "application/json" },
      };
      expectInvalid(await api.upload(ctx.uniqueId("dl"), notUtf8), "upload of bytes that are not UTF-8");
      await api.cleanUp([existing]);
    },
  },
  {
    title:
      "[DLE-ERR-08, DEC-DLE-04] a body over 1 MiB is 400 1400 (not 413) on upload and update; exactly 1 MiB is accepted",
    async run(ctx) {
      const api = await DataLayerApi.open(ctx);
      const exact = ctx.uniqueId("dl");
      const headers = { "content-type": "application/json" };
      expectPending(await api.upload(exact, { raw: bodyOfSize(mebibyte), headers }), 201);
      expectInvalid(
        await api.upload(ctx.uniqueId("dl"), { raw: bodyOfSize(mebibyte + 1), headers }),
        "upload of 1 MiB + 1 byte",
      );
      expectInvalid(await api.update(exact, { raw: bodyOfSize(mebibyte + 1), headers }), "update of 1 MiB + 1 byte");
      expectInvalid(
        await api.upload(ctx.uniqueId("dl"), { raw: bodyOfSize(3 * mebibyte), headers }),
        "upload of 3 MiB",
      );
      expectPending(await api.update(exact, { raw: bodyOfSize(mebibyte), headers }), 200);
      await api.cleanUp([exact]);
    },
  },
  {
    title:
      "[DEC-DLE-04] Content-Encoding gzip is accepted and the 1 MiB limit applies after decompression; a Content-Type other than application/json is 400 1400",
    async run(ctx) {
      const api = await DataLayerApi.open(ctx);
      const zipped = ctx.uniqueId("dl");
      const gzip = (text: string) => new Uint8Array(gzipSync(Buffer.from(text, "utf8")));
      expectPending(
        await api.upload(zipped, {
          raw: gzip('{"zipped":true}'),
          headers: { "content-type": "application/json; charset=utf-8", "content-encoding": "gzip" },
        }),
        201,
      );
      // A few kilobytes that decompress past 1 MiB: refused without inflating it all.
      const bomb = gzip(bodyOfSize(mebibyte + 1));
      expectTrue(bomb.byteLength < 64 * 1024, "the compressed body is small");
      expectInvalid(
        await api.upload(ctx.uniqueId("dl"), {
          raw: bomb,
          headers: { "content-type": "application/json", "content-encoding": "gzip" },
        }),
        "gzip body over 1 MiB once decompressed",
      );
      expectPending(
        await api.update(zipped, {
          raw: gzip(bodyOfSize(mebibyte)),
          headers: { "content-type": "application/json", "content-encoding": "gzip" },
        }),
        200,
      );
      expectInvalid(
        await api.upload(ctx.uniqueId("dl"), {
          raw: "not gzip",
          headers: { "content-type": "application/json", "content-encoding": "gzip" },
        }),
        "a body that is not gzip",
      );
      for (const type of ["text/plain", "application/x-www-form-urlencoded", "text/json"]) {
        expectInvalid(
          await api.upload(ctx.uniqueId("dl"), { raw: '{"a":1}', headers: { "content-type": type } }),
          `Content-Type ${type}`,
        );
      }
      expectInvalid(await api.upload(ctx.uniqueId("dl"), { raw: '{"a":1}' }), "no Content-Type");
      const cased = ctx.uniqueId("dl");
      expectPending(
        await api.upload(cased, { raw: '{"a":1}', headers: { "content-type": "Application/JSON; charset=UTF-8" } }),
        201,
      );
      await api.cleanUp([zipped, cased]);
    },
  },
  {
    title:
      "[DEC-DLE-03] nesting of 64 levels is accepted, 65 is 400 1400, and 100 000 levels are refused while the service keeps answering",
    async run(ctx) {
      const api = await DataLayerApi.open(ctx);
      const headers = { "content-type": "application/json" };
      const deep = ctx.uniqueId("dl");
      expectPending(await api.upload(deep, { raw: nestedBody(64), headers }), 201);
      expectInvalid(await api.upload(ctx.uniqueId("dl"), { raw: nestedBody(65), headers }), "65 levels");
      expectInvalid(await api.update(deep, { raw: nestedBody(65), headers }), "update with 65 levels");
      expectInvalid(
        await api.upload(ctx.uniqueId("dl"), { raw: `{"a":${"[".repeat(100_000)}${"]".repeat(100_000)}}`, headers }),
        "100 000 levels",
      );
      expectInvalid(
        await api.upload(ctx.uniqueId("dl"), { raw: '{"a":'.repeat(200_000), headers }),
        "200 000 unclosed objects",
      );
      expectStatus(await ctx.base.get("/healthz"), 200);
      await statusOf(api, deep);
      await api.cleanUp([deep]);
    },
  },
  {
    title: "[DEC-DLE-03, DEC-DLE-07] __proto__ and constructor keys are stored and served back as plain data",
    needs: ["admin", "test-clock"],
    async run(ctx) {
      const api = await DataLayerApi.open(ctx);
      const dlId = ctx.uniqueId("dl");
      const text = '{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}},"toString":"no"}';
      expectPending(await api.upload(dlId, { raw: text, headers: { "content-type": "application/json" } }), 201);
      await publishPending(ctx, api);
      await expectServed(api, dlId, text);
      const assigned = runServedScript((await api.served(dlId, "js")).text, dlId) as Record<string, unknown>;
      expectTrue(
        Object.hasOwn(assigned, "__proto__") && Object.getPrototypeOf(assigned) === Object.prototype,
        `__proto__ must be an own key, not the prototype; the script assigned ${JSON.stringify(assigned).slice(0, 300)}`,
      );
      await api.cleanUp([dlId]);
    },
  },
  {
    title:
      "[DEC-DLE-05, DLE-07] calls on a pending dl_id are accepted and applied in order: status reads the newest change, the content is the last accepted",
    needs: ["admin", "test-clock"],
    async run(ctx) {
      const api = await DataLayerApi.open(ctx);
      const dlId = ctx.uniqueId("dl");
      await api.uploaded(dlId, { step: 1 });
      expectPending(await api.update(dlId, { json: { step: 2 } }), 200);
      expectPending(await api.remove(dlId), 200);
      expectPending(await api.upload(dlId, { json: { step: 4 } }), 201);
      expectPending(await api.update(dlId, { json: { step: 5 } }), 200);
      await publishPending(ctx, api);
      expectEqual(await statusOf(api, dlId), "completed", "status of the newest change");
      await expectServed(api, dlId, '{"step":5}');
      expectPending(await api.update(dlId, { json: { step: 6 } }), 200);
      expectPending(await api.remove(dlId), 200);
      await publishPending(ctx, api);
      await expectNotServed(api, dlId);
      expectEqual(await statusOf(api, dlId), "completed", "status of the completed delete");
    },
  },
  {
    title:
      "[DLE-01, DLE-02, DLE-03, DLE-04, DLE-05, DLE-07, DLE-08, DLE-10, DLE-11, DEC-DLE-05, DEC-DLE-07, DEC-DLE-08] any sequence of calls and clock moves answers as the model says, and serves what it says once drained",
    kind: "property",
    needs: ["admin", "test-clock"],
    async run(ctx) {
      await ctx.checkProperty(
        fc.asyncProperty(fc.array(stepArbitrary, { minLength: 1, maxLength: 24 }), (steps) => runModel(ctx, steps)),
        { numRuns: 12 },
      );
    },
  },
]);

// ---------------------------------------------------------------------------------------------------
// The model test: random calls over HTTP, compared with what a small model says each must answer.
// ---------------------------------------------------------------------------------------------------

type Step =
  | { readonly op: "upload" | "update"; readonly id: number; readonly body: Record<string, unknown> }
  | { readonly op: "delete" | "status"; readonly id: number }
  | { readonly op: "list" }
  /** Publish everything pending (past the longest delay), or move 31 days (every status expires). */
  | { readonly op: "advance"; readonly days31: boolean };

const ids = 3;
const key = fc.oneof(
  fc.constantFrom("a", "b", "page", "__proto__"),
  fc.constantFrom("x.y", "."),
  fc.string({ maxLength: 4 }),
);
const bodyArbitrary = fc.dictionary(
  key,
  fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.dictionary(key, fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 })),
  { maxKeys: 3 },
);
const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant("upload" as const), id: fc.nat(ids - 1), body: bodyArbitrary }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("update" as const), id: fc.nat(ids - 1), body: bodyArbitrary }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("delete" as const), id: fc.nat(ids - 1) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("status" as const), id: fc.nat(ids - 1) }) },
  { weight: 1, arbitrary: fc.constant({ op: "list" as const }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("advance" as const), days31: fc.boolean() }) },
);

/** DEC-DLE-01: 405 1464 for an upload on a dl_id that exists, 404 1404 for an update of one that does not. */
function expectRefusedFor(answer: HttpAnswer, status: 404 | 405, api: DataLayerApi, name: string): void {
  if (status === 405) expectErrorBody(answer, 405, 1464, alreadyExistsMessage);
  else expectErrorBody(answer, 404, 1404, notFoundMessage(api.account, api.profile, name));
}

function hasPeriodKey(value: unknown): boolean {
  if (value === null || typeof value !== "object") return false;
  if (Array.isArray(value)) return value.some(hasPeriodKey);
  return Object.entries(value).some(([name, child]) => name.includes(".") || hasPeriodKey(child));
}

/** What the model knows of one data layer. */
interface ModelLayer {
  exists: boolean;
  /** A change was ever accepted. */
  touched: boolean;
  /** Every accepted change was published (an advance and a wait came after the newest). */
  drained: boolean;
  /** A 31-day move came after the newest change. */
  expired: boolean;
  /** The JSON text of the last accepted upload or update while it exists. */
  content: string | null;
}

async function runModel(ctx: ScenarioContext, steps: readonly Step[]): Promise<void> {
  const api = await DataLayerApi.open(ctx);
  const names = Array.from({ length: ids }, () => ctx.uniqueId("model"));
  const model: ModelLayer[] = names.map(() => ({
    exists: false,
    touched: false,
    drained: true,
    expired: false,
    content: null,
  }));
  const trail: string[] = [];
  const at = () => `after ${trail.join(", ")}`;
  try {
    for (const step of steps) {
      trail.push(
        step.op === "advance"
          ? step.days31
            ? "advance 31d"
            : "publish"
          : step.op === "list"
            ? "list"
            : `${step.op} #${step.id}`,
      );
      switch (step.op) {
        case "upload":
        case "update": {
          const layer = model[step.id] as ModelLayer;
          const name = names[step.id] as string;
          const text = JSON.stringify(step.body);
          const answer =
            step.op === "upload"
              ? await api.upload(name, { raw: text, headers: { "content-type": "application/json" } })
              : await api.update(name, { raw: text, headers: { "content-type": "application/json" } });
          const conflict =
            step.op === "upload" && layer.exists ? 405 : step.op === "update" && !layer.exists ? 404 : null;
          if (hasPeriodKey(step.body)) {
            // DEC-DLE-01 and DEC-DLE-03 do not order their checks: a body refused on a dl_id refused as well may
            // be answered either way. Either way nothing changes.
            expectStatus(answer, conflict === null ? 400 : [400, conflict]);
            if (answer.status === 400) expectErrorBody(answer, 400, 1400);
            else expectRefusedFor(answer, conflict as 404 | 405, api, name);
          } else if (conflict !== null) expectRefusedFor(answer, conflict, api, name);
          else {
            expectPending(answer, step.op === "upload" ? 201 : 200);
            Object.assign(layer, { exists: true, touched: true, drained: false, expired: false, content: text });
          }
          break;
        }
        case "delete": {
          const layer = model[step.id] as ModelLayer;
          const name = names[step.id] as string;
          const answer = await api.remove(name);
          if (!layer.exists) expectErrorBody(answer, 404, 1404, notFoundMessage(api.account, api.profile, name));
          else {
            expectPending(answer, 200);
            Object.assign(layer, { exists: false, touched: true, drained: false, expired: false, content: null });
          }
          break;
        }
        case "status": {
          const layer = model[step.id] as ModelLayer;
          const answer = await api.status(names[step.id] as string);
          if (!layer.touched || layer.expired) expectErrorBody(answer, 404, 1404, statusUnavailableMessage);
          else {
            expectStatus(answer, 200);
            const status = jsonObject(answer).status as string;
            // Not yet drained: the publisher may or may not have got to it in real time.
            const allowed = layer.drained ? ["completed"] : ["pending", "completed"];
            expectTrue(
              allowed.includes(status),
              `status of #${step.id} is ${status}, expected ${allowed.join(" or ")} ${at()}`,
            );
          }
          break;
        }
        case "list": {
          const mine = (await listed(api)).filter((name) => names.includes(name));
          const expected = names
            .filter((_, index) => model[index]?.exists)
            .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
          expectEqual(mine, expected, `the model's data layers in the list ${at()}`);
          break;
        }
        case "advance": {
          if (step.days31) {
            await advanceClock(ctx, "31d");
            await waitForBackgroundWork(ctx);
            await api.relogin();
            for (const layer of model) Object.assign(layer, { drained: true, expired: layer.touched });
          } else {
            await publishPending(ctx, api);
            for (const layer of model) layer.drained = true;
          }
          for (const [index, layer] of model.entries()) {
            const served = await api.served(names[index] as string, "json");
            if (layer.content === null) expectEqual(served.status, 404, `#${index} is not served ${at()}`);
            else {
              expectEqual(served.status, 200, `#${index} is served ${at()}`);
              expectEqual(served.text, layer.content, `what #${index} serves ${at()}`);
            }
          }
          break;
        }
      }
    }
  } finally {
    await api.cleanUp(names.filter((_, index) => model[index]?.exists));
  }
}
