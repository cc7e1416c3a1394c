import fc from "fast-check";
import { type HttpAnswer, ScenarioSkip } from "../harness/client.ts";
import {
  about,
  expectEqual,
  expectHeader,
  expectStatus,
  expectTrue,
  fail,
  isPlainObject,
  isString,
  jsonField,
  jsonObject,
} from "../harness/expect.ts";
import { defineScenarios, type ScenarioContext } from "../harness/scenario.ts";
import { waitForBackgroundWork } from "./admin-support.ts";
import { collect } from "./collect-support.ts";
import { askUntil } from "./waiting-support.ts";

/** The engines' allow list holds example.com (TargetFixtures.engines), so a page on one of its subdomains may ask. */
const page = { referer: "https://shop.example.com/product/42", origin: "https://shop.example.com" };

interface VisitorData {
  audiences: string[];
  badges: string[];
  metrics: Record<string, number>;
  properties: Record<string, string>;
  flags: Record<string, boolean>;
  dates: Record<string, number>;
}

function enginePath(ctx: ScenarioContext, engine: string): string {
  return `/personalization/accounts/${ctx.fixtures.account}/profiles/${ctx.fixtures.profile}/engines/${engine}`;
}

async function sendEvent(
  ctx: ScenarioContext,
  visitorId: string,
  params: Record<string, string | number>,
): Promise<void> {
  const answer = await collect(ctx, "POST", "/event", {
    json: {
      svc_account: ctx.fixtures.account,
      svc_profile: ctx.fixtures.profile,
      svc_visitor_id: visitorId,
      ...params,
    },
  });
  expectStatus(answer, 200);
}

/**
 * Reads the visitor once the service has processed the events sent before: after the wait call (DEC-OPS-04)
 * when the admin token is given, otherwise by asking again until the answer holds what `ready` looks for.
 */
async function readVisitor(
  ctx: ScenarioContext,
  path: string,
  ready: (answer: HttpAnswer) => boolean,
  headers: Record<string, string> = page,
): Promise<HttpAnswer> {
  if (ctx.target.adminToken) await waitForBackgroundWork(ctx);
  return askUntil(ctx, () => ctx.moments.get(path, { headers }), ready);
}

/**
 * Whether the answer holds the visitor with this count yet (under the key of the event count attribute, its
 * name unless an id is given); any other answer (not JSON, another shape) is "not yet".
 */
const found =
  (ctx: ScenarioContext, eventCount: number, key = ctx.fixtures.attributes.eventCount.name) =>
  (answer: HttpAnswer) => {
    if (answer.status !== 200 || answer.text === "") return false;
    let body: unknown;
    try {
      body = JSON.parse(answer.text);
    } catch {
      return false;
    }
    return isPlainObject(body) && isPlainObject(body.metrics) && body.metrics[key] === eventCount;
  };

const sections = [
  ["audiences", "array"],
  ["badges", "array"],
  ["metrics", "object"],
  ["properties", "object"],
  ["flags", "object"],
  ["dates", "object"],
] as const;

/** MOM-03: a 200 answer whose body has the six sections; anything else fails, naming the request and showing the body. */
function visitorDataOf(answer: HttpAnswer): VisitorData {
  expectStatus(answer, 200);
  const body = jsonObject(answer);
  for (const [section, shape] of sections) {
    const value = body[section];
    expectTrue(
      shape === "array" ? Array.isArray(value) : isPlainObject(value),
      `${section} must be present as an ${shape}, got ${JSON.stringify(value)}`,
      answer,
    );
  }
  return body as unknown as VisitorData;
}

/**
 * The visitor data an engine keyed by names answers for these events (TargetFixtures: the attributes, badge
 * and audience the engines select), without the date, which is the time of the last purchase.
 */
function expectedByName(ctx: ScenarioContext, events: readonly string[]): Omit<VisitorData, "dates"> {
  const { attributes, badge, audience, purchaseEvent } = ctx.fixtures;
  const purchased = events.includes(purchaseEvent);
  return {
    audiences: purchased ? [audience.name] : [],
    badges: purchased ? [badge.name] : [],
    metrics: { [attributes.eventCount.name]: events.length },
    properties: { [attributes.lastEventName.name]: events.at(-1) as string },
    flags: purchased ? { [attributes.hasPurchased.name]: true } : {},
  };
}

/** The known visitor of an e-mail address (VID-02): `__<account>_<profile>__<attribute_id>_<value>__`. */
function knownVisitor(ctx: ScenarioContext, email: string): string {
  return `__${ctx.fixtures.account}_${ctx.fixtures.profile}__${ctx.fixtures.visitorIdAttributes.email.id}_${email}__`;
}

/** The attribute form of the engine path, looking the visitor up by the e-mail visitor ID attribute. */
function byEmail(ctx: ScenarioContext, email: string): string {
  return `${enginePath(ctx, ctx.fixtures.engines.names)}?attributeId=${ctx.fixtures.visitorIdAttributes.email.id}&attributeValue=${encodeURIComponent(email)}`;
}

/** MOM-*, DEC-MOM-*, DEC-PRO-*, VID-01/08: events sent to /event, read back through the engines of the fixtures. */
export const momentsScenarios = defineScenarios("moments", [
  {
    title:
      "[MOM-01, MOM-03, VID-01, DEC-PRO-01, DEC-PRO-03, DEC-MOM-04] events of one visitor show up as audiences, badges, metrics, properties, flags and dates",
    kind: "e2e",
    async run(ctx) {
      const visitor = ctx.uniqueId("moments-visitor");
      const events = ["view", ctx.fixtures.purchaseEvent];
      for (const name of events) await sendEvent(ctx, visitor, { svc_event: name });
      const answer = await readVisitor(
        ctx,
        `${enginePath(ctx, ctx.fixtures.engines.names)}/visitors/${visitor}`,
        found(ctx, 2),
      );
      const data = visitorDataOf(answer);
      const expected = expectedByName(ctx, events);
      expectEqual(data.audiences, expected.audiences, "audiences", answer);
      expectEqual(data.badges, expected.badges, "badges", answer);
      expectEqual(data.metrics, expected.metrics, "metrics", answer);
      expectEqual(data.properties, expected.properties, "properties", answer);
      expectEqual(data.flags, expected.flags, "flags", answer);
      const lastPurchaseName = ctx.fixtures.attributes.lastPurchase.name;
      const lastPurchase = data.dates[lastPurchaseName];
      expectTrue(
        Number.isInteger(lastPurchase) && (lastPurchase as number) > 1_500_000_000_000,
        `${lastPurchaseName} must be epoch milliseconds, got ${lastPurchase}`,
      );
    },
  },
  {
    title:
      "[MOM-03, DEC-MOM-04] a visitor with a single view has all six sections, the empty audiences, badges, flags and dates too",
    kind: "e2e",
    async run(ctx) {
      const visitor = ctx.uniqueId("one-view");
      await sendEvent(ctx, visitor, { svc_event: "view" });
      const answer = await readVisitor(
        ctx,
        `${enginePath(ctx, ctx.fixtures.engines.names)}/visitors/${visitor}`,
        found(ctx, 1),
      );
      expectStatus(answer, 200);
      const body = jsonObject(answer);
      for (const [section] of sections)
        expectTrue(
          Object.hasOwn(body, section),
          `DEC-MOM-04: the section ${section} must be present even when empty`,
          answer,
        );
      expectEqual(
        Object.keys(body).sort(),
        sections.map(([section]) => section).sort(),
        "the sections of the answer",
        answer,
      );
      const data = visitorDataOf(answer);
      const expected = expectedByName(ctx, ["view"]);
      expectEqual(data.audiences, [], "audiences after a single view", answer);
      expectEqual(data.badges, [], "badges after a single view", answer);
      expectEqual(data.flags, {}, "flags after a single view", answer);
      expectEqual(data.dates, {}, "dates after a single view", answer);
      expectEqual(data.metrics, expected.metrics, "metrics", answer);
      expectEqual(data.properties, expected.properties, "properties", answer);
    },
  },
  {
    title:
      "[MOM-02, VID-08, DEC-COL-11, DEC-MOM-04] an email_address parameter stitches the visitor: the attribute form and the anonymous id both find the merged visitor",
    kind: "e2e",
    async run(ctx) {
      const visitor = ctx.uniqueId("stitch-visitor");
      const email = `${ctx.uniqueId("buyer").toLowerCase()}@example.com`;
      await sendEvent(ctx, visitor, { svc_event: "view" });
      await sendEvent(ctx, visitor, {
        svc_event: ctx.fixtures.purchaseEvent,
        [ctx.fixtures.visitorIdAttributes.email.parameter]: email,
      });
      const byAttribute = await readVisitor(ctx, byEmail(ctx, email), found(ctx, 2));
      expectEqual(
        visitorDataOf(byAttribute).metrics,
        { [ctx.fixtures.attributes.eventCount.name]: 2 },
        "metrics of the known visitor",
        byAttribute,
      );
      const byAnonymousId = await readVisitor(
        ctx,
        `${enginePath(ctx, ctx.fixtures.engines.names)}/visitors/${visitor}`,
        found(ctx, 2),
      );
      expectEqual(
        visitorDataOf(byAnonymousId),
        visitorDataOf(byAttribute),
        "the anonymous id answers the merged visitor",
        byAnonymousId,
      );
    },
  },
  {
    title:
      "[VID-02, VID-08] events under the known visitor ID and events of a stitched anonymous visitor make one profile",
    kind: "e2e",
    async run(ctx) {
      const email = `${ctx.uniqueId("known").toLowerCase()}@example.com`;
      const known = knownVisitor(ctx, email);
      const anonymous = ctx.uniqueId("anon");
      await sendEvent(ctx, known, { svc_event: "login" });
      await sendEvent(ctx, anonymous, { svc_event: "view" });
      await sendEvent(ctx, anonymous, { svc_event: "view", [ctx.fixtures.visitorIdAttributes.email.parameter]: email });
      const answer = await readVisitor(ctx, byEmail(ctx, email), found(ctx, 3));
      expectEqual(
        visitorDataOf(answer).metrics,
        { [ctx.fixtures.attributes.eventCount.name]: 3 },
        "metrics of the one profile",
        answer,
      );
    },
  },
  {
    title:
      "[MOM-04, DEC-MOM-01] an engine keyed by ids answers audience UIDs <account>_<profile>_<id> and attribute and badge ids",
    kind: "e2e",
    async run(ctx) {
      const visitor = ctx.uniqueId("ids-visitor");
      const { attributes, audience, badge } = ctx.fixtures;
      await sendEvent(ctx, visitor, { svc_event: ctx.fixtures.purchaseEvent });
      const answer = await readVisitor(
        ctx,
        `${enginePath(ctx, ctx.fixtures.engines.ids)}/visitors/${visitor}`,
        found(ctx, 1, String(attributes.eventCount.id)),
      );
      const data = visitorDataOf(answer);
      expectEqual(
        data.audiences,
        [`${ctx.fixtures.account}_${ctx.fixtures.profile}_${audience.id}`],
        "audiences",
        answer,
      );
      expectEqual(data.badges, [String(badge.id)], "badges", answer);
      expectEqual(data.metrics, { [attributes.eventCount.id]: 1 }, "metrics", answer);
      expectEqual(data.flags, { [attributes.hasPurchased.id]: true }, "flags", answer);
      expectEqual(Object.keys(data.properties), [String(attributes.lastEventName.id)], "properties keys", answer);
      expectEqual(Object.keys(data.dates), [String(attributes.lastPurchase.id)], "dates keys", answer);
    },
  },
  {
    title:
      "[MOM-05, MOM-11, DEC-MOM-04] only the engine's selection is answered, and a PII attribute never, even when selected",
    kind: "e2e",
    async run(ctx) {
      const visitor = ctx.uniqueId("pii-visitor");
      const email = `${ctx.uniqueId("private").toLowerCase()}@example.com`;
      const { attributes, visitorIdAttributes } = ctx.fixtures;
      await sendEvent(ctx, visitor, {
        svc_event: ctx.fixtures.purchaseEvent,
        [attributes.lastPurchaseAmount.parameter]: 99,
        [visitorIdAttributes.email.parameter]: email,
      });
      const answer = await readVisitor(
        ctx,
        `${enginePath(ctx, ctx.fixtures.engines.names)}/visitors/${visitor}`,
        found(ctx, 1),
      );
      expectStatus(answer, 200);
      expectTrue(!answer.text.includes(email), `the PII e-mail must never be answered: ${answer.text}`);
      expectTrue(
        !answer.text.includes(JSON.stringify(attributes.email.name)),
        `the PII attribute must not appear: ${answer.text}`,
      );
      // The amount (99) must not appear as a value; the text may still hold "99" inside a timestamp.
      const values = Object.values(jsonObject(answer)).flatMap((section) =>
        section && typeof section === "object" ? Object.values(section) : [section],
      );
      expectTrue(
        !answer.text.includes(JSON.stringify(attributes.lastPurchaseAmount.name)) &&
          !values.some((value) => value === 99 || value === "99"),
        `an attribute the engine does not select must not appear: ${answer.text}`,
      );
    },
  },
  {
    title:
      "[MOM-05, DEC-MOM-01] an engine that selects neither the audience nor the badge answers neither, though the visitor is in the audience and has the badge",
    kind: "e2e",
    async run(ctx) {
      const { engines, attributes, audience, badge, purchaseEvent } = ctx.fixtures;
      const engine = engines.attributesOnly;
      if (engine === undefined) {
        throw new ScenarioSkip(
          "needs fixtures.engines.attributesOnly: an enabled engine keyed by names that selects only the attributes eventCount and lastEventName, " +
            "neither the audience nor the badge. demo.md has none (svc-hub's demo has demo-engine-attributes); name one in a target file",
        );
      }
      // MOM-09, MOM-10: an enabled engine answers 200 for a visitor it has no data of, with suppressNotFound=true.
      const served = await ctx.moments.get(`${enginePath(ctx, engine)}/visitors/${ctx.uniqueId("nobody")}`, {
        headers: page,
        query: { suppressNotFound: "true" },
      });
      if (served.status !== 200)
        fail(
          about(
            served,
            `fixtures.engines.attributesOnly names ${engine}, which the target does not serve as an enabled engine`,
          ),
        );
      const visitor = ctx.uniqueId("unselected-visitor");
      await sendEvent(ctx, visitor, { svc_event: purchaseEvent });
      // The engine that selects them shows the visitor is in the audience and has the badge.
      const selecting = await readVisitor(ctx, `${enginePath(ctx, engines.names)}/visitors/${visitor}`, found(ctx, 1));
      const all = visitorDataOf(selecting);
      expectEqual(
        [all.audiences, all.badges],
        [[audience.name], [badge.name]],
        `audiences and badges through ${engines.names}`,
        selecting,
      );
      const answer = await readVisitor(ctx, `${enginePath(ctx, engine)}/visitors/${visitor}`, found(ctx, 1));
      const data = visitorDataOf(answer);
      expectEqual(data.audiences, [], `audiences through ${engine}, which selects none`, answer);
      expectEqual(data.badges, [], `badges through ${engine}, which selects none`, answer);
      expectEqual(data.metrics, { [attributes.eventCount.name]: 1 }, "metrics", answer);
      expectEqual(data.properties, { [attributes.lastEventName.name]: purchaseEvent }, "properties", answer);
      expectEqual(
        data.flags,
        {},
        `flags through ${engine}, which does not select ${attributes.hasPurchased.name}`,
        answer,
      );
      expectEqual(
        data.dates,
        {},
        `dates through ${engine}, which does not select ${attributes.lastPurchase.name}`,
        answer,
      );
    },
  },
  {
    title:
      "[MOM-06, DEC-MOM-02] a Referer outside the allow list, or none (also with an allowed Origin), is 403; a subdomain of an allowed domain is served",
    async run(ctx) {
      const path = `${enginePath(ctx, ctx.fixtures.engines.names)}/visitors/${ctx.uniqueId("any")}?suppressNotFound=true`;
      const outside = await ctx.moments.get(path, {
        headers: { referer: "https://example.net/page", origin: "https://example.net" },
      });
      expectStatus(outside, 403);
      jsonField(outside, "message", isString, "a string (the 403 body is {message})");
      expectStatus(await ctx.moments.get(path, { headers: { referer: "https://notexample.com/" } }), 403);
      expectStatus(await ctx.moments.get(path), 403);
      // MOM-06 asks for the Referer: an allowed Origin (example.com is on the list) does not stand in for it.
      const originOnly = await ctx.moments.get(path, { headers: { origin: "https://example.com" } });
      expectStatus(originOnly, 403);
      jsonField(
        originOnly,
        "message",
        isString,
        "a string (the 403 of a missing Referer is {message}, even with an allowed Origin)",
      );
      expectStatus(await ctx.moments.get(path, { headers: page }), 200);
    },
  },
  {
    // DEC-MOM-01 allows a domain and its subdomains: two conditions. The scenario above asks from a subdomain only,
    // which a filter matching `.example.com` at the end alone would also serve.
    title: "[MOM-06, DEC-MOM-01, DEC-MOM-02] a Referer on an allowed domain itself, not a subdomain of it, is served",
    async run(ctx) {
      const path = `${enginePath(ctx, ctx.fixtures.engines.names)}/visitors/${ctx.uniqueId("any")}?suppressNotFound=true`;
      for (const referer of ["https://example.com/product/42", "http://example.com/"])
        expectStatus(await ctx.moments.get(path, { headers: { referer } }), 200);
    },
  },
  {
    title:
      "[MOM-07, DEC-MOM-04, DEC-COL-12] the Origin is echoed with credentials allowed, and the preflight is answered",
    async run(ctx) {
      const path = `${enginePath(ctx, ctx.fixtures.engines.names)}/visitors/${ctx.uniqueId("cors")}?suppressNotFound=true`;
      const answer = await ctx.moments.get(path, { headers: page });
      expectHeader(answer, "access-control-allow-origin", page.origin);
      expectHeader(answer, "access-control-allow-credentials", "true");
      expectHeader(answer, "vary", /Origin/);
      const preflight = await ctx.moments.request("OPTIONS", path, {
        headers: { origin: page.origin, "access-control-request-method": "GET" },
      });
      expectStatus(preflight, [200, 204]);
      expectHeader(preflight, "access-control-allow-origin", page.origin);
      expectHeader(preflight, "access-control-allow-methods", /GET/);
    },
  },
  {
    title: "[MOM-08, DEC-MOM-02] a disabled engine is 403",
    async run(ctx) {
      const answer = await ctx.moments.get(
        `${enginePath(ctx, ctx.fixtures.engines.disabled)}/visitors/${ctx.uniqueId("v")}`,
        { headers: page },
      );
      expectStatus(answer, 403);
      jsonField(answer, "message", isString, "a string (the 403 body is {message})");
    },
  },
  {
    // MOM-10 in part: a visitor without any session with events; the engine-enabled half is in coverage-pending.json.
    title:
      "[MOM-09, MOM-10] a visitor without data (no session with events) is 404 by default and 200 with an empty body with suppressNotFound=true",
    async run(ctx) {
      const path = `${enginePath(ctx, ctx.fixtures.engines.names)}/visitors/${ctx.uniqueId("nobody")}`;
      const missing = await ctx.moments.get(path, { headers: page });
      expectStatus(missing, 404);
      jsonField(missing, "message", isString, "a string (the 404 body is {message})");
      expectStatus(await ctx.moments.get(path, { headers: page, query: { suppressNotFound: "false" } }), 404);
      const suppressed = await ctx.moments.get(path, { headers: page, query: { suppressNotFound: "true" } });
      expectStatus(suppressed, 200);
      expectEqual(suppressed.text, "", "body");
    },
  },
  {
    title: "[MOM-12, DEC-MOM-02] bad parameters are 400 {message}; an unknown account, profile or engine is 404",
    async run(ctx) {
      const { engines, attributes, visitorIdAttributes } = ctx.fixtures;
      const form = enginePath(ctx, engines.names);
      const bad = [
        { attributeId: "email", attributeValue: "a@b.c" },
        { attributeId: String(attributes.eventCount.id), attributeValue: "x" },
        { attributeId: String(visitorIdAttributes.email.id) },
        { attributeValue: "x" },
      ];
      for (const query of bad) {
        const answer = await ctx.moments.get(form, { headers: page, query });
        expectStatus(answer, 400);
        jsonField(answer, "message", isString, "a string (the 400 body is {message})");
      }
      expectStatus(await ctx.moments.get(`${form}/visitors/v?suppressNotFound=maybe`, { headers: page }), 400);
      expectStatus(
        await ctx.moments.get(`${enginePath(ctx, ctx.uniqueId("no-engine"))}/visitors/v`, { headers: page }),
        404,
      );
      expectStatus(
        await ctx.moments.get(
          `/personalization/accounts/${ctx.uniqueId("noacct")}/profiles/${ctx.fixtures.profile}/engines/${engines.names}/visitors/v`,
          { headers: page },
        ),
        404,
      );
      expectStatus(
        await ctx.moments.get(
          `/personalization/accounts/${ctx.fixtures.account}/profiles/${ctx.uniqueId("noprof")}/engines/${engines.names}/visitors/v`,
          { headers: page },
        ),
        404,
      );
    },
  },
  {
    title:
      "[DEC-PRV-05, MOM-02] a visitor-ID value is normalised in the attribute form as at collection: white space around it is not part of it, white space only is 400",
    kind: "e2e",
    async run(ctx) {
      const email = `${ctx.uniqueId("padded").toLowerCase()}@example.com`;
      await sendEvent(ctx, ctx.uniqueId("padded-visitor"), {
        svc_event: "view",
        [ctx.fixtures.visitorIdAttributes.email.parameter]: `${email}\t`,
      });
      const trimmed = await readVisitor(ctx, byEmail(ctx, email), found(ctx, 1));
      expectEqual(
        visitorDataOf(trimmed).metrics,
        { [ctx.fixtures.attributes.eventCount.name]: 1 },
        "the visitor sent with a trailing tab, by the trimmed value",
        trimmed,
      );
      const padded = await ctx.moments.get(byEmail(ctx, ` ${email}\u00a0`), { headers: page });
      expectEqual(visitorDataOf(padded), visitorDataOf(trimmed), "the same visitor by a padded value", padded);
      const blank = await ctx.moments.get(byEmail(ctx, " \t"), { headers: page });
      expectStatus(blank, 400);
      jsonField(blank, "message", isString, "a string (the 400 body is {message})");
    },
  },
  {
    title: "[DEC-MOM-03] the TAPID entry of the account/profile wins over the path identifier unless ignoreTapid=true",
    kind: "e2e",
    async run(ctx) {
      const tapidVisitor = ctx.uniqueId("tapid-visitor");
      const pathVisitor = ctx.uniqueId("path-visitor");
      await sendEvent(ctx, tapidVisitor, { svc_event: "view" });
      await sendEvent(ctx, tapidVisitor, { svc_event: "view" });
      await sendEvent(ctx, pathVisitor, { svc_event: "view" });
      const cookie = `TAPID=${ctx.fixtures.account}/${ctx.fixtures.profile}>${tapidVisitor}|`;
      const path = `${enginePath(ctx, ctx.fixtures.engines.names)}/visitors/${pathVisitor}`;
      const eventCount = ctx.fixtures.attributes.eventCount.name;
      const withTapid = await readVisitor(ctx, path, found(ctx, 2), { ...page, cookie });
      expectEqual(visitorDataOf(withTapid).metrics, { [eventCount]: 2 }, "the TAPID visitor's metrics", withTapid);
      const ignoring = await readVisitor(ctx, `${path}?ignoreTapid=true`, found(ctx, 1), { ...page, cookie });
      expectEqual(visitorDataOf(ignoring).metrics, { [eventCount]: 1 }, "the path visitor's metrics", ignoring);
    },
  },
  {
    // DEC-MOM-03 takes the entry "for the account/profile": a reader taking the cookie's first entry, or any
    // entry of the account, would pass the scenario above, whose cookie holds one entry only.
    title:
      "[DEC-MOM-03] only the TAPID entry of the request's account/profile replaces the path identifier: other entries do not, and ours counts after them",
    kind: "e2e",
    async run(ctx) {
      const { account, profile, otherProfile, otherAccount, otherAccountProfile } = ctx.fixtures;
      const tapidVisitor = ctx.uniqueId("tapid-visitor");
      const pathVisitor = ctx.uniqueId("path-visitor");
      await sendEvent(ctx, tapidVisitor, { svc_event: "view" });
      await sendEvent(ctx, tapidVisitor, { svc_event: "view" });
      await sendEvent(ctx, pathVisitor, { svc_event: "view" });
      const path = `${enginePath(ctx, ctx.fixtures.engines.names)}/visitors/${pathVisitor}`;
      const eventCount = ctx.fixtures.attributes.eventCount.name;
      const othersOnly = `TAPID=${otherAccount}/${otherAccountProfile}>${tapidVisitor}|${account}/${otherProfile}>${tapidVisitor}|`;
      const notOurs = await readVisitor(ctx, path, found(ctx, 1), { ...page, cookie: othersOnly });
      expectEqual(
        visitorDataOf(notOurs).metrics,
        { [eventCount]: 1 },
        "the path visitor's metrics (no TAPID entry for this account/profile)",
        notOurs,
      );
      const oursLast = `TAPID=${otherAccount}/${otherAccountProfile}>${pathVisitor}|${account}/${profile}>${tapidVisitor}|`;
      const ours = await readVisitor(ctx, path, found(ctx, 2), { ...page, cookie: oursLast });
      expectEqual(
        visitorDataOf(ours).metrics,
        { [eventCount]: 2 },
        "the TAPID visitor's metrics (this account/profile's entry, after another's)",
        ours,
      );
    },
  },
  {
    title:
      "[DEC-PRO-01, DEC-PRO-03] for any sequence of views and purchases, the moments answer follows the demo enrichments",
    kind: "property",
    needs: ["admin"],
    async run(ctx) {
      await ctx.checkProperty(
        fc.asyncProperty(
          fc.array(fc.constantFrom("view", "cart", ctx.fixtures.purchaseEvent), { minLength: 1, maxLength: 6 }),
          async (events) => {
            const visitor = ctx.uniqueId("prop-visitor");
            for (const name of events) await sendEvent(ctx, visitor, { svc_event: name });
            const answer = await readVisitor(
              ctx,
              `${enginePath(ctx, ctx.fixtures.engines.names)}/visitors/${visitor}`,
              found(ctx, events.length),
            );
            const data = visitorDataOf(answer);
            const expected = expectedByName(ctx, events);
            expectEqual(data.metrics, expected.metrics, "metrics");
            expectEqual(data.properties, expected.properties, "properties");
            expectEqual(data.flags, expected.flags, "flags");
            expectEqual(data.badges, expected.badges, "badges");
            expectEqual(data.audiences, expected.audiences, "audiences");
            const purchased = events.includes(ctx.fixtures.purchaseEvent);
            if (purchased !== ctx.fixtures.attributes.lastPurchase.name in data.dates)
              fail(`dates ${JSON.stringify(data.dates)} after ${events.join(", ")}`);
          },
        ),
        { numRuns: 8 },
      );
    },
  },
]);
