import fc from "fast-check";
import { type HttpAnswer, ScenarioSkip } from "../harness/client.ts";
import {
  expectEqual,
  expectErrorBody,
  expectHeader,
  expectStatus,
  expectTrue,
  fail,
  isNonEmptyString,
  isPlainObject,
  jsonField,
  jsonObject,
} from "../harness/expect.ts";
import { defineScenarios, type ScenarioContext } from "../harness/scenario.ts";
import { advanceClock, isShortTiming, readClock, runDueWork, waitForBackgroundWork } from "./admin-support.ts";
import { collect, queryEvents } from "./collect-support.ts";
import { askUntil, judged, judgeInAttempts, noVerdict } from "./waiting-support.ts";

/** The id of the e-mail visitor ID attribute of the fixtures (demo: 5120 email_address). */
function emailAttributeOf(ctx: ScenarioContext): string {
  return String(ctx.fixtures.visitorIdAttributes.email.id);
}

/** The id of the customer visitor ID attribute of the fixtures (demo: 5121 customer_id). */
function customerAttributeOf(ctx: ScenarioContext): string {
  return String(ctx.fixtures.visitorIdAttributes.customer.id);
}

const invalidRequestMessage = "Invalid request submission. Please check supplied parameters or request body.";
const permissionWording =
  "although the user is authenticated, the request is denied because of a lack of proper permissions";
/** The engines' allow list holds example.com (TargetFixtures.engines). */
const page = { referer: "https://shop.example.com/", origin: "https://shop.example.com" };

interface VisitorRecord {
  metrics: Record<string, number>;
  dates: Record<string, number>;
  properties: Record<string, string>;
  flags: Record<string, boolean>;
  badges: string[];
  audiences: string[];
  secondary_ids: Record<string, string>;
}

interface VisitorAnswer {
  transaction_id: string;
  transactionId: string;
  live: boolean;
  visitor: VisitorRecord;
}

/** The visitor privacy API of one account and profile, with a bearer token from POST /v2/auth (AUT-01). */
class PrivacyApi {
  private constructor(
    private readonly ctx: ScenarioContext,
    private token: string,
    readonly account: string,
    readonly profile: string,
    private readonly user: { email: string; apiKey: string },
  ) {}

  static async open(
    ctx: ScenarioContext,
    options: { account?: string; profile?: string; user?: { email: string; apiKey: string } } = {},
  ): Promise<PrivacyApi> {
    const user = options.user ?? ctx.fixtures.user;
    return new PrivacyApi(
      ctx,
      await issueToken(ctx, user),
      options.account ?? ctx.fixtures.account,
      options.profile ?? ctx.fixtures.profile,
      user,
    );
  }

  /** A new token, after the virtual clock moved past the old one's 30 minutes (DEC-AUT-01). */
  async renew(): Promise<void> {
    this.token = await issueToken(this.ctx, this.user);
  }

  get headers(): Record<string, string> {
    return { authorization: `Bearer ${this.token}` };
  }

  get base(): string {
    return `/v2/visitor/accounts/${encodeURIComponent(this.account)}/profiles/${encodeURIComponent(this.profile)}`;
  }

  get(query: Record<string, string>): Promise<HttpAnswer> {
    return this.ctx.base.get(this.base, { headers: this.headers, query });
  }

  visitor(value: string, options: { attributeId?: string; prettyName?: string } = {}): Promise<HttpAnswer> {
    const query: Record<string, string> = {
      attributeId: options.attributeId ?? emailAttributeOf(this.ctx),
      attributeValue: value,
    };
    if (options.prettyName !== undefined) query.prettyName = options.prettyName;
    return this.get(query);
  }

  remove(form: Record<string, string>, query?: Record<string, string>): Promise<HttpAnswer> {
    return this.ctx.base.delete(this.base, { headers: this.headers, form, query });
  }

  /** PRV-05: DELETE with form fields; expects 202 {transactionId} and answers the id. */
  async requestDeletion(value: string, attributeId = emailAttributeOf(this.ctx)): Promise<string> {
    const answer = await this.remove({ attributeId, attributeValue: value });
    expectStatus(answer, 202);
    const body = jsonObject(answer);
    expectTrue(isNonEmptyString(body.transactionId), "202 body must be {transactionId: string}", answer);
    expectEqual(Object.keys(body), ["transactionId"], "the 202 body's fields", answer);
    return body.transactionId as string;
  }

  transaction(id: string): Promise<HttpAnswer> {
    return this.ctx.base.get(`${this.base}/transactions/${encodeURIComponent(id)}`, { headers: this.headers });
  }

  /** PRV-07: the state of a transaction, `{<id>: state}` exactly. */
  async state(id: string): Promise<string> {
    const answer = await this.transaction(id);
    expectStatus(answer, 200);
    const body = jsonObject(answer);
    expectEqual(Object.keys(body), [id], "the transaction answer's keys", answer);
    expectTrue(
      body[id] === "PENDING" || body[id] === "SUCCESS" || body[id] === "FAILED",
      "state must be PENDING, SUCCESS or FAILED",
      answer,
    );
    return body[id] as string;
  }
}

async function issueToken(ctx: ScenarioContext, user: { email: string; apiKey: string }): Promise<string> {
  const answer = await ctx.base.post("/v2/auth", { form: { username: user.email, key: user.apiKey } });
  expectStatus(answer, 200);
  return jsonField(answer, "token", isNonEmptyString, "a non-empty string");
}

function uniqueEmail(ctx: ScenarioContext, prefix: string): string {
  return `${ctx.uniqueId(prefix).toLowerCase()}@example.com`;
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
 * Reads the visitor once the `events` sent for it before are applied: after the wait call (DEC-OPS-04) when the
 * admin token is given, otherwise by asking again until its event count (fixtures.attributes.eventCount) reads
 * `events`. Found is not enough: a visitor is found once its first event is applied, maybe before the next.
 */
async function readVisitor(
  ctx: ScenarioContext,
  api: PrivacyApi,
  value: string,
  events: number,
  options: { attributeId?: string } = {},
): Promise<HttpAnswer> {
  if (ctx.target.adminToken) await waitForBackgroundWork(ctx);
  const eventCount = String(ctx.fixtures.attributes.eventCount.id);
  return askUntil(
    ctx,
    () => api.visitor(value, options),
    (answer) => {
      if (answer.status !== 200) return false;
      const visitor = jsonAnswer(answer)?.visitor;
      return isPlainObject(visitor) && isPlainObject(visitor.metrics) && visitor.metrics[eventCount] === events;
    },
  );
}

/** The body of an answer as JSON, or null when it is not JSON (for a condition asked again, not an assertion). */
function jsonAnswer(answer: HttpAnswer): Record<string, unknown> | null {
  try {
    const body: unknown = JSON.parse(answer.text);
    return isPlainObject(body) ? body : null;
  } catch {
    return null;
  }
}

/**
 * Moves the test clock past the deletion delay of its timing preset (LIM-05, DEC-PRV-04) and
 * waits for the deletion worker. A move of days outlives the tokens, so the APIs given get new ones.
 */
async function runDueDeletions(ctx: ScenarioContext, ...apis: PrivacyApi[]): Promise<void> {
  const short = isShortTiming((await readClock(ctx)).timing);
  await advanceClock(ctx, short ? "5s" : "4d");
  await waitForBackgroundWork(ctx);
  if (!short) for (const api of apis) await api.renew();
}

/**
 * The shortest deletion delay of a timing preset (DEC-PRV-04) as the suite reads it: "about 2 s" (fast) is at
 * least 1.5 s, "days" (realistic) at least a day; a preset of another name, which the scenarios take for a long
 * one (they advance 4 days past it), at least a minute. instant has none.
 */
function shortestDeletionDelayMs(timing: string | undefined): number {
  if (timing === "instant") return 0;
  if (timing === "fast") return 1_500;
  if (timing === "realistic") return 86_400_000;
  return 60_000;
}

/**
 * PRV-10, DEC-PRV-04: requests the deletion of a known visitor and looks at it before its delay has passed (after
 * moving the test clock by `advance`, if given, and running the work due): the transaction reads PENDING and the
 * visitor is still found. The test clock flows at the real pace, so a busy target can reach the delay while the
 * scenario looks: the clock is read before the request and after the look. A deletion seen done while less than
 * the shortest delay had passed fails the scenario; one seen done later judges nothing, and the attempt starts
 * again with another visitor. Answers the transaction and the e-mail address of the attempt that judged.
 */
async function deletionBeforeItsDelay(
  ctx: ScenarioContext,
  api: PrivacyApi,
  advance?: string,
): Promise<{ id: string; email: string }> {
  const { timing } = await readClock(ctx);
  const shortest = shortestDeletionDelayMs(timing);
  if (shortest === 0)
    throw new ScenarioSkip(`the target runs ${timing} timing, which has no deletion delay to observe`);
  return judgeInAttempts("a deletion before its delay", async () => {
    const email = uniqueEmail(ctx, "delay");
    await makeBuyer(ctx, email);
    await waitForBackgroundWork(ctx);
    const requestedBy = (await readClock(ctx)).nowMs;
    const id = await api.requestDeletion(email);
    if (advance) await advanceClock(ctx, advance);
    await runDueWork(ctx);
    const state = await api.state(id);
    const visitor = await api.visitor(email);
    const elapsedMs = (await readClock(ctx)).nowMs - requestedBy;
    expectTrue(state !== "FAILED", `the deletion ${id} read FAILED`);
    if (visitor.status !== 404) expectVisitorAnswer(visitor);
    if (state === "PENDING" && visitor.status === 200) return judged({ id, email });
    const done = `${id} read ${state} and the visitor answered ${visitor.status} ${elapsedMs} ms after the request (test clock)`;
    if (elapsedMs < shortest)
      fail(`${done}: before the shortest deletion delay of ${timing} timing, ${shortest} ms (DEC-PRV-04)`);
    return noVerdict(`${done}, past the shortest delay of ${timing} timing`);
  });
}

function expectVisitorAnswer(answer: HttpAnswer): VisitorAnswer {
  expectStatus(answer, 200);
  const body = jsonObject(answer);
  expectEqual(
    Object.keys(body).sort(),
    ["live", "transactionId", "transaction_id", "visitor"],
    "the answer's fields",
    answer,
  );
  expectTrue(isNonEmptyString(body.transaction_id), "transaction_id must be a non-empty string", answer);
  expectEqual(body.transactionId, body.transaction_id, "transactionId (the same value as transaction_id)", answer);
  expectTrue(typeof body.live === "boolean", "live must be a boolean", answer);
  const visitor = body.visitor;
  if (!isPlainObject(visitor)) fail(`${answer.request}: visitor must be an object, got ${JSON.stringify(visitor)}`);
  const sections = [
    ["metrics", "object"],
    ["dates", "object"],
    ["properties", "object"],
    ["flags", "object"],
    ["badges", "array"],
    ["audiences", "array"],
    ["secondary_ids", "object"],
  ] as const;
  expectEqual(Object.keys(visitor).sort(), sections.map(([name]) => name).sort(), "the visitor's sections", answer);
  for (const [section, shape] of sections) {
    const value = visitor[section];
    expectTrue(
      shape === "array" ? Array.isArray(value) : isPlainObject(value),
      `${section} must be an ${shape}, got ${JSON.stringify(value)}`,
      answer,
    );
  }
  return body as unknown as VisitorAnswer;
}

/** A known visitor of the fixtures' profile: an anonymous visit, then a purchase naming the e-mail address and the amount 42. */
async function makeBuyer(ctx: ScenarioContext, email: string): Promise<{ anonymous: string }> {
  const { purchaseEvent, visitorIdAttributes, attributes } = ctx.fixtures;
  const anonymous = ctx.uniqueId("privacy-anon");
  await sendEvent(ctx, anonymous, { svc_event: "view" });
  await sendEvent(ctx, anonymous, {
    svc_event: purchaseEvent,
    [visitorIdAttributes.email.parameter]: email,
    [attributes.lastPurchaseAmount.parameter]: 42,
  });
  return { anonymous };
}

/**
 * Skips the scenario unless the API's profile has the visitor ID attribute `attributeId` (GET .../ids, PRV-08):
 * demo.md gives acme/dev none, so a target may leave fixtures.otherProfile without it; svc-hub's demo gives
 * it the visitor ID attributes of acme/main.
 */
async function requireVisitorIdAttribute(ctx: ScenarioContext, api: PrivacyApi, attributeId: string): Promise<void> {
  const answer = await ctx.base.get(`${api.base}/ids`, { headers: api.headers });
  expectStatus(answer, 200);
  if (Object.hasOwn(jsonObject(answer), attributeId)) return;
  throw new ScenarioSkip(
    `needs the visitor ID attribute ${attributeId} (fixtures.visitorIdAttributes.email) on fixtures.otherProfile ${api.account}/${api.profile} too, ` +
      `and GET ${api.base}/ids answered ${answer.text.slice(0, 200)}`,
  );
}

/** PRV-*, LIM-05, DEC-PRV-*: the visitor privacy API (v2), with visitors made through /event. */
export const privacyScenarios = defineScenarios("privacy", [
  {
    title:
      "[PRV-01, PRV-02, DEC-PRV-01] GET with attributeId and attributeValue answers 200 {transaction_id, transactionId, live, visitor} with all seven sections",
    kind: "e2e",
    async run(ctx) {
      const api = await PrivacyApi.open(ctx);
      const email = uniqueEmail(ctx, "record");
      await makeBuyer(ctx, email);
      const { attributes, visitorIdAttributes } = ctx.fixtures;
      const body = expectVisitorAnswer(await readVisitor(ctx, api, email, 2));
      expectEqual(
        body.visitor.metrics[attributes.eventCount.id],
        2,
        `metrics ${attributes.eventCount.id} (${attributes.eventCount.name})`,
      );
      expectEqual(
        body.visitor.secondary_ids[visitorIdAttributes.email.id],
        email,
        `secondary_ids ${visitorIdAttributes.email.id}`,
      );
      expectEqual(body.live, true, "live right after the events");
    },
  },
  {
    title:
      "[PRV-03, DEC-PRV-01] prettyName=false (the default) keys by attribute ids and audience UIDs, prettyName=true by names; PII is included",
    kind: "e2e",
    async run(ctx) {
      const api = await PrivacyApi.open(ctx);
      const email = uniqueEmail(ctx, "pretty");
      await makeBuyer(ctx, email);
      const { attributes: a, badge, audience, purchaseEvent } = ctx.fixtures;
      const emailId = ctx.fixtures.visitorIdAttributes.email;
      const byDefault = expectVisitorAnswer(await readVisitor(ctx, api, email, 2)).visitor;
      const byIds = expectVisitorAnswer(await api.visitor(email, { prettyName: "false" })).visitor;
      expectEqual(byIds, byDefault, "prettyName=false and no prettyName");
      expectEqual(byIds.metrics, { [a.eventCount.id]: 2, [a.lastPurchaseAmount.id]: 42 }, "metrics by id");
      expectEqual(
        byIds.properties,
        { [a.lastEventName.id]: purchaseEvent, [a.email.id]: email },
        `properties by id (${a.email.id} is PII, and included)`,
      );
      expectEqual(byIds.flags, { [a.hasPurchased.id]: true }, "flags by id");
      expectEqual(Object.keys(byIds.dates), [String(a.lastPurchase.id)], "dates by id");
      const purchasedAt = byIds.dates[a.lastPurchase.id];
      expectTrue(
        Number.isInteger(purchasedAt) && (purchasedAt as number) > 1_500_000_000_000,
        `dates are epoch milliseconds, got ${JSON.stringify(byIds.dates)}`,
      );
      expectEqual(byIds.badges, [String(badge.id)], "badges by id");
      expectEqual(
        byIds.audiences,
        [`${ctx.fixtures.account}_${ctx.fixtures.profile}_${audience.id}`],
        "audiences by UID",
      );
      expectEqual(byIds.secondary_ids, { [emailId.id]: email }, "secondary_ids by id");

      const byNames = expectVisitorAnswer(await api.visitor(email, { prettyName: "true" })).visitor;
      expectEqual(byNames.metrics, { [a.eventCount.name]: 2, [a.lastPurchaseAmount.name]: 42 }, "metrics by name");
      expectEqual(
        byNames.properties,
        { [a.lastEventName.name]: purchaseEvent, [a.email.name]: email },
        "properties by name",
      );
      expectEqual(byNames.flags, { [a.hasPurchased.name]: true }, "flags by name");
      expectEqual(byNames.dates, { [a.lastPurchase.name]: purchasedAt as number }, "dates by name");
      expectEqual(byNames.badges, [badge.name], "badges by name");
      expectEqual(byNames.audiences, [audience.name], "audiences by name");
      expectEqual(byNames.secondary_ids, { [emailId.name]: email }, "secondary_ids by name");
    },
  },
  {
    title:
      "[PRV-04] attributeValue is URL-decoded: values with +, spaces, &, =, % and non-ASCII characters find their visitor",
    kind: "property",
    async run(ctx) {
      const api = await PrivacyApi.open(ctx);
      const special = fc.constantFrom("+", " ", "&", "=", "%", "/", "?", "#", "é", "ü", "€", "😀", "@", "__");
      await ctx.checkProperty(
        fc.asyncProperty(fc.array(special, { minLength: 1, maxLength: 6 }), async (parts) => {
          const value = `${ctx.uniqueId("cust")}${parts.join("")}`;
          await sendEvent(ctx, ctx.uniqueId("privacy-cust"), {
            svc_event: "view",
            [ctx.fixtures.visitorIdAttributes.customer.parameter]: value,
          });
          const answer = await readVisitor(ctx, api, value, 1, { attributeId: customerAttributeOf(ctx) });
          const body = expectVisitorAnswer(answer);
          expectEqual(body.visitor.secondary_ids[customerAttributeOf(ctx)], value, "the customer id read back");
        }),
        { numRuns: 6 },
      );
    },
  },
  {
    title: "[PRV-05] DELETE with form fields attributeId and attributeValue answers 202 {transactionId}",
    async run(ctx) {
      const api = await PrivacyApi.open(ctx);
      const id = await api.requestDeletion(uniqueEmail(ctx, "delete-form"));
      expectTrue(id.length >= 8, `a transaction id, got ${id}`);
    },
  },
  {
    title:
      "[PRV-05, DEC-PRV-02] DELETE with its parameters in the query string, or a body that is not a form, is 400 1400",
    async run(ctx) {
      const api = await PrivacyApi.open(ctx);
      const email = uniqueEmail(ctx, "delete-query");
      const emailAttribute = emailAttributeOf(ctx);
      expectErrorBody(
        await ctx.base.delete(api.base, {
          headers: api.headers,
          query: { attributeId: emailAttribute, attributeValue: email },
        }),
        400,
        1400,
        invalidRequestMessage,
      );
      expectErrorBody(
        await api.remove({ attributeId: emailAttribute, attributeValue: email }, { attributeValue: email }),
        400,
        1400,
        invalidRequestMessage,
      );
      const json = await ctx.base.delete(api.base, {
        headers: api.headers,
        json: { attributeId: emailAttribute, attributeValue: email },
      });
      expectErrorBody(json, 400, 1400, invalidRequestMessage);
    },
  },
  {
    title:
      "[PRV-06] a second DELETE while the first is PENDING answers the same transactionId, also when sent at once; another value gets its own",
    async run(ctx) {
      const api = await PrivacyApi.open(ctx);
      const { email, first } = await judgeInAttempts(
        "a deletion still PENDING once a second DELETE and a burst of eight were answered",
        async () => {
          const email = uniqueEmail(ctx, "twice");
          const first = await api.requestDeletion(email);
          const again = await api.requestDeletion(email);
          const burst = await Promise.all(Array.from({ length: 8 }, () => api.requestDeletion(email)));
          // Read after the answers: PENDING now means PENDING when they were made (a state never goes back). A
          // deletion settled in between (its delay passed while the target was busy) judges nothing.
          const state = await api.state(first);
          if (state !== "PENDING") return noVerdict(`${first} read ${state} once the others were answered`);
          expectEqual(again, first, "the second request's transactionId");
          expectEqual([...new Set(burst)], [first], "transactionIds of concurrent requests");
          return judged({ email, first });
        },
      );
      // Whatever the state of the first by now: another value or attribute is never its transaction.
      const other = await api.requestDeletion(uniqueEmail(ctx, "other"));
      expectTrue(other !== first, `another value must make another transaction; both got ${first}`);
      expectTrue(
        (await api.requestDeletion(email, customerAttributeOf(ctx))) !== first,
        `another attribute must make another transaction; both got ${first}`,
      );
    },
  },
  {
    title:
      "[PRV-06] a pending deletion is answered again only in its own profile: the same attribute and value on another profile of the account get their own transaction",
    async run(ctx) {
      const api = await PrivacyApi.open(ctx);
      const other = await PrivacyApi.open(ctx, { profile: ctx.fixtures.otherProfile });
      await requireVisitorIdAttribute(ctx, other, emailAttributeOf(ctx));
      await judgeInAttempts(
        "both profiles' deletions still PENDING once the second DELETEs were answered",
        async () => {
          const email = uniqueEmail(ctx, "two-profiles");
          const first = await api.requestDeletion(email);
          const elsewhere = await other.requestDeletion(email);
          // A transaction is its profile's (PRV-07), pending or settled: this holds whatever the timing.
          expectTrue(
            elsewhere !== first,
            `a DELETE on ${other.account}/${other.profile} answered ${first}, the transaction of ${api.account}/${api.profile}: ` +
              "PRV-06 answers the pending one only for the same account, profile, attributeId and attributeValue",
          );
          const againElsewhere = await other.requestDeletion(email);
          const againHere = await api.requestDeletion(email);
          // As above: both read PENDING after the second DELETEs were answered, so both were pending when they came.
          const states = [await other.state(elsewhere), await api.state(first)];
          if (states.some((state) => state !== "PENDING"))
            return noVerdict(
              `${elsewhere} on ${other.profile} and ${first} on ${api.profile} read ${states.join(" and ")} once the second DELETEs were answered`,
            );
          expectEqual(againElsewhere, elsewhere, `a second DELETE on ${other.profile}: its own pending transactionId`);
          expectEqual(againHere, first, `a second DELETE on ${api.profile}: its own pending transactionId`);
          return judged(undefined);
        },
      );
    },
  },
  {
    title: "[PRV-06, PRV-10] once a deletion has settled, the same DELETE starts a new transaction",
    needs: ["admin", "test-clock"],
    async run(ctx) {
      const api = await PrivacyApi.open(ctx);
      const email = uniqueEmail(ctx, "again-later");
      const first = await api.requestDeletion(email);
      await runDueDeletions(ctx, api);
      expectEqual(await api.state(first), "SUCCESS", "the first transaction");
      const second = await api.requestDeletion(email);
      expectTrue(
        second !== first,
        `a settled transaction must not be answered again: the new DELETE answered ${first} once more`,
      );
      // PENDING, or SUCCESS already: its own delay may have passed on a busy machine.
      expectTrue(
        ["PENDING", "SUCCESS"].includes(await api.state(second)),
        `the new transaction ${second} must be known, PENDING or SUCCESS`,
      );
    },
  },
  {
    title:
      "[PRV-07, DEC-PRV-03] GET .../transactions/{id} answers {<id>: state}; an unknown id is 404 1404 Transaction not found",
    async run(ctx) {
      const api = await PrivacyApi.open(ctx);
      const id = await api.requestDeletion(uniqueEmail(ctx, "poll"));
      const answer = await api.transaction(id);
      expectStatus(answer, 200);
      expectHeader(answer, "content-type", /^application\/json\b/);
      const state = await api.state(id);
      expectTrue(
        ["PENDING", "SUCCESS"].includes(state),
        `a new deletion must be PENDING (or already SUCCESS), got ${state}`,
      );
      expectErrorBody(await api.transaction(ctx.uniqueId("no-such-transaction")), 404, 1404, "Transaction not found");
    },
  },
  {
    title: "[PRV-07, AUT-03, DEC-PRV-03] a transaction is found only under its own account and profile",
    async run(ctx) {
      const api = await PrivacyApi.open(ctx);
      const id = await api.requestDeletion(uniqueEmail(ctx, "scoped"));
      const otherProfile = await PrivacyApi.open(ctx, { profile: ctx.fixtures.otherProfile });
      expectErrorBody(await otherProfile.transaction(id), 404, 1404, "Transaction not found");
      const otherUser = await PrivacyApi.open(ctx, { user: ctx.fixtures.otherUser });
      expectErrorBody(await otherUser.transaction(id), 401, 1469, permissionWording);
    },
  },
  {
    title: "[PRV-08, DEC-PRV-02] the attributes .../ids lists are the ones get and delete accept",
    async run(ctx) {
      const api = await PrivacyApi.open(ctx);
      const ids = await ctx.base.get(`${api.base}/ids`, { headers: api.headers });
      expectStatus(ids, 200);
      const attributes = Object.keys(jsonObject(ids));
      const [emailAttribute, customerAttribute] = [emailAttributeOf(ctx), customerAttributeOf(ctx)];
      expectTrue(
        attributes.includes(emailAttribute) && attributes.includes(customerAttribute),
        `expected the attributes ${emailAttribute} and ${customerAttribute}`,
        ids,
      );
      for (const attributeId of attributes) {
        const answer = await api.visitor(uniqueEmail(ctx, "listed"), { attributeId });
        expectErrorBody(answer, 404, 1404, "Visitor not found");
      }
    },
  },
  {
    title:
      "[PRV-09, DEC-PRV-04] deletion removes the visitor, every stitched visitor, their events and what engines serve; others stay",
    kind: "e2e",
    needs: ["admin", "test-clock", "event-log"],
    async run(ctx) {
      const api = await PrivacyApi.open(ctx);
      const email = uniqueEmail(ctx, "stitched");
      const { visitorIdAttributes, attributes, engines } = ctx.fixtures;
      const emailParameter = visitorIdAttributes.email.parameter;
      const known = `__${ctx.fixtures.account}_${ctx.fixtures.profile}__${visitorIdAttributes.email.id}_${email}__`;
      const { anonymous } = await makeBuyer(ctx, email);
      const secondDevice = ctx.uniqueId("privacy-device");
      await sendEvent(ctx, secondDevice, { svc_event: "view", [emailParameter]: email });
      await sendEvent(ctx, known, { svc_event: "login" });
      const bystander = ctx.uniqueId("privacy-bystander");
      await sendEvent(ctx, bystander, {
        svc_event: ctx.fixtures.purchaseEvent,
        [emailParameter]: uniqueEmail(ctx, "bystander"),
      });
      expectEqual(
        expectVisitorAnswer(await readVisitor(ctx, api, email, 4)).visitor.metrics[attributes.eventCount.id],
        4,
        "events of the stitched visitor before",
      );

      const id = await api.requestDeletion(email);
      await runDueDeletions(ctx, api);
      expectEqual(await api.state(id), "SUCCESS", "the deletion");
      const gone = await api.visitor(email);
      expectErrorBody(gone, 404, 1404, "Visitor not found");
      const engine = `/personalization/accounts/${ctx.fixtures.account}/profiles/${ctx.fixtures.profile}/engines/${engines.names}`;
      for (const visitor of [anonymous, secondDevice, known]) {
        expectStatus(
          await ctx.moments.get(`${engine}/visitors/${encodeURIComponent(visitor)}`, { headers: page }),
          404,
        );
        const { events, answer } = await queryEvents(ctx, { account: ctx.fixtures.account, visitor, limit: 10 });
        expectEqual(events.length, 0, `stored events of ${visitor}`, answer);
      }
      expectStatus(await ctx.moments.get(`${engine}/visitors/${bystander}`, { headers: page }), 200);
    },
  },
  {
    title: "[PRV-10, LIM-05, DEC-PRV-04] a deletion stays PENDING until its delay has passed, then becomes SUCCESS",
    needs: ["admin", "test-clock"],
    async run(ctx) {
      const api = await PrivacyApi.open(ctx);
      const { id } = await deletionBeforeItsDelay(ctx, api);
      await runDueDeletions(ctx, api);
      expectEqual(await api.state(id), "SUCCESS", "the state after the delay");
    },
  },
  {
    title:
      "[PRV-11, DEC-GEN-04] an unknown account is 404 1240 and an unknown profile 404 1250, on get, delete and transactions",
    async run(ctx) {
      const token = await issueToken(ctx, ctx.fixtures.user);
      const headers = { authorization: `Bearer ${token}` };
      const emailAttribute = emailAttributeOf(ctx);
      const cases = [
        {
          base: `/v2/visitor/accounts/${ctx.uniqueId("noacct")}/profiles/${ctx.fixtures.profile}`,
          code: 1240,
          message: "Account was not found",
        },
        {
          base: `/v2/visitor/accounts/${ctx.fixtures.account}/profiles/${ctx.uniqueId("noprof")}`,
          code: 1250,
          message: "Profile was not found",
        },
      ];
      for (const { base, code, message } of cases) {
        expectErrorBody(
          await ctx.base.get(base, {
            headers,
            query: { attributeId: emailAttribute, attributeValue: "a@example.com" },
          }),
          404,
          code,
          message,
        );
        expectErrorBody(
          await ctx.base.delete(base, {
            headers,
            form: { attributeId: emailAttribute, attributeValue: "a@example.com" },
          }),
          404,
          code,
          message,
        );
        expectErrorBody(await ctx.base.get(`${base}/transactions/any`, { headers }), 404, code, message);
      }
    },
  },
  {
    title:
      "[PRV-01, DEC-GEN-02, AUT-03] every call needs a bearer token (401 1401), and a grant on the account (401 1469)",
    async run(ctx) {
      const api = await PrivacyApi.open(ctx);
      const query = { attributeId: emailAttributeOf(ctx), attributeValue: "a@example.com" };
      expectErrorBody(await ctx.base.get(api.base, { query }), 401, 1401, "Authentication Failed");
      expectErrorBody(await ctx.base.delete(api.base, { form: query }), 401, 1401, "Authentication Failed");
      expectErrorBody(await ctx.base.get(`${api.base}/transactions/any`), 401, 1401, "Authentication Failed");
      expectErrorBody(
        await ctx.base.get(api.base, { query, headers: { authorization: `Bearer ${ctx.fixtures.user.apiKey}` } }),
        401,
        1401,
        "Authentication Failed",
      );
      const other = await PrivacyApi.open(ctx, { user: ctx.fixtures.otherUser });
      expectErrorBody(await ctx.base.get(api.base, { query, headers: other.headers }), 401, 1469, permissionWording);
      expectErrorBody(
        await ctx.base.delete(api.base, { form: query, headers: other.headers }),
        401,
        1469,
        permissionWording,
      );
    },
  },
  {
    title:
      "[PRV-12, DEC-PRV-03] a get is a transaction too: its id reads SUCCESS at once, also when the visitor was not found",
    async run(ctx) {
      const api = await PrivacyApi.open(ctx);
      const email = uniqueEmail(ctx, "get-transaction");
      await makeBuyer(ctx, email);
      const found = expectVisitorAnswer(await readVisitor(ctx, api, email, 2));
      expectEqual(await api.state(found.transaction_id), "SUCCESS", "the get's transaction");
      const second = expectVisitorAnswer(await api.visitor(email));
      expectTrue(
        second.transaction_id !== found.transaction_id,
        `every get must be a transaction of its own; two gets answered ${found.transaction_id}`,
      );
      const missing = await api.visitor(uniqueEmail(ctx, "nobody"));
      const body = expectErrorBody(missing, 404, 1404, "Visitor not found") as { transaction_id?: unknown };
      expectTrue(typeof body.transaction_id === "string", `the 404 names its transaction, got ${missing.text}`);
      expectEqual(await api.state(body.transaction_id as string), "SUCCESS", "the not-found get's transaction");
    },
  },
  {
    title: "[DEC-PRV-01] a visitor not found is 404 {returnCode: 1404, message: Visitor not found, transaction_id}",
    async run(ctx) {
      const api = await PrivacyApi.open(ctx);
      const answer = await api.visitor(uniqueEmail(ctx, "unknown"));
      const body = expectErrorBody(answer, 404, 1404, "Visitor not found");
      expectEqual(
        Object.keys(body).sort(),
        ["message", "returnCode", "transaction_id"],
        "the 404 body's fields",
        answer,
      );
    },
  },
  {
    title:
      "[DEC-PRV-01, DEC-PRO-02] live is true while the visit is open and false once 30 minutes passed without events",
    needs: ["admin", "test-clock"],
    async run(ctx) {
      const api = await PrivacyApi.open(ctx);
      const email = uniqueEmail(ctx, "live");
      await makeBuyer(ctx, email);
      expectEqual(expectVisitorAnswer(await readVisitor(ctx, api, email, 2)).live, true, "live during the visit");
      await advanceClock(ctx, "31m");
      await api.renew();
      expectEqual(expectVisitorAnswer(await api.visitor(email)).live, false, "live 31 minutes after the last event");
    },
  },
  {
    title:
      "[DEC-PRV-02] attributeId missing, not numeric or not a visitor ID attribute, attributeValue empty, or prettyName not a boolean is 400 1400",
    async run(ctx) {
      const api = await PrivacyApi.open(ctx);
      const email = "someone@example.com";
      const emailAttribute = emailAttributeOf(ctx);
      const bad: Array<Record<string, string>> = [
        { attributeValue: email },
        { attributeId: "email", attributeValue: email },
        { attributeId: String(ctx.fixtures.attributes.eventCount.id), attributeValue: email },
        { attributeId: emailAttribute },
        { attributeId: emailAttribute, attributeValue: "" },
      ];
      for (const fields of bad) {
        expectErrorBody(await api.get(fields), 400, 1400, invalidRequestMessage);
        expectErrorBody(await api.remove(fields), 400, 1400, invalidRequestMessage);
      }
      expectErrorBody(
        await api.get({ attributeId: emailAttribute, attributeValue: email, prettyName: "yes" }),
        400,
        1400,
        invalidRequestMessage,
      );
    },
  },
  {
    title:
      "[DEC-PRV-05, PRV-02] an e-mail sent with white space around it (a leading space, a trailing tab) names the visitor of the trimmed value, which get visitor finds; case is kept",
    kind: "e2e",
    async run(ctx) {
      const api = await PrivacyApi.open(ctx);
      const email = uniqueEmail(ctx, "padded");
      const { visitorIdAttributes, attributes } = ctx.fixtures;
      await sendEvent(ctx, ctx.uniqueId("privacy-lead"), {
        svc_event: "view",
        [visitorIdAttributes.email.parameter]: ` ${email}`,
      });
      await sendEvent(ctx, ctx.uniqueId("privacy-trail"), {
        svc_event: "view",
        [visitorIdAttributes.email.parameter]: `${email}\t`,
      });
      const body = expectVisitorAnswer(await readVisitor(ctx, api, email, 2));
      expectEqual(body.visitor.metrics[attributes.eventCount.id], 2, "both events are the visitor's");
      expectEqual(
        body.visitor.secondary_ids[visitorIdAttributes.email.id],
        email,
        "the captured value, without the white space",
      );
      // The lookup's value is normalised the same way (a no-break space is Unicode White_Space too).
      expectVisitorAnswer(await api.visitor(`\u00a0${email}\n`));
      expectErrorBody(await api.visitor(email.toUpperCase()), 404, 1404, "Visitor not found");
    },
  },
  {
    title: "[DEC-PRV-05, DEC-PRV-02] an attributeValue of white space only is 400 1400 on get and delete",
    async run(ctx) {
      const api = await PrivacyApi.open(ctx);
      for (const blank of [" ", "\t", " \u00a0\n"]) {
        const fields = { attributeId: emailAttributeOf(ctx), attributeValue: blank };
        expectErrorBody(await api.get(fields), 400, 1400, invalidRequestMessage);
        expectErrorBody(await api.remove(fields), 400, 1400, invalidRequestMessage);
      }
    },
  },
  {
    title:
      "[DEC-PRV-05, PRV-09] a deletion of the trimmed value removes the visitor sent padded, and erases the value from another visitor's parameters, whose event stays",
    kind: "e2e",
    needs: ["admin", "test-clock", "event-log"],
    async run(ctx) {
      const api = await PrivacyApi.open(ctx);
      const email = uniqueEmail(ctx, "erase-padded");
      const bystanderEmail = uniqueEmail(ctx, "bystander");
      const emailParameter = ctx.fixtures.visitorIdAttributes.email.parameter;
      const lead = ctx.uniqueId("privacy-lead");
      const trail = ctx.uniqueId("privacy-trail");
      const bystander = ctx.uniqueId("privacy-bystander");
      await sendEvent(ctx, lead, { svc_event: "view", [emailParameter]: ` ${email}` });
      await sendEvent(ctx, trail, { svc_event: "view", [emailParameter]: `${email}\t` });
      // Not a visitor ID attribute's parameter: the value is not taken as a visitor ID here.
      await sendEvent(ctx, bystander, {
        svc_event: "view",
        [emailParameter]: bystanderEmail,
        referred_by: ` ${email}`,
        amount: 3,
      });
      expectVisitorAnswer(await readVisitor(ctx, api, email, 2));

      const id = await api.requestDeletion(email);
      await runDueDeletions(ctx, api);
      expectEqual(await api.state(id), "SUCCESS", "the deletion");
      expectErrorBody(await api.visitor(email), 404, 1404, "Visitor not found");
      for (const visitor of [lead, trail]) {
        const { events, answer } = await queryEvents(ctx, { account: ctx.fixtures.account, visitor, limit: 10 });
        expectEqual(events.length, 0, `stored events of ${visitor}`, answer);
      }
      const { events, answer } = await queryEvents(ctx, {
        account: ctx.fixtures.account,
        visitor: bystander,
        limit: 10,
      });
      expectEqual(events.length, 1, `stored events of ${bystander}`, answer);
      const data = (events[0] as { data: Record<string, unknown> }).data;
      expectTrue(!Object.hasOwn(data, "referred_by"), "the parameter that held the deleted value is gone", answer);
      expectEqual(
        [data[emailParameter], data.amount, data.svc_event],
        [bystanderEmail, 3, "view"],
        "the rest of the bystander's event",
        answer,
      );
      expectTrue(!answer.text.includes(email), "no stored event holds the deleted value", answer);
      expectVisitorAnswer(await api.visitor(bystanderEmail));
    },
  },
  {
    title: "[DEC-PRV-04] deleting a visitor nobody knows ends SUCCESS",
    needs: ["admin", "test-clock"],
    async run(ctx) {
      const api = await PrivacyApi.open(ctx);
      const id = await api.requestDeletion(uniqueEmail(ctx, "never-seen"));
      await runDueDeletions(ctx, api);
      expectEqual(await api.state(id), "SUCCESS", "the deletion of an unknown visitor");
    },
  },
  {
    title:
      "[DEC-PRV-04] the delay follows the timing preset: nothing is deleted before it, and the transaction is SUCCESS after",
    needs: ["admin", "test-clock"],
    async run(ctx) {
      const { timing } = await readClock(ctx);
      if (timing === "instant") fail("the suite expects a delay (fast or realistic timing), the target runs instant");
      const api = await PrivacyApi.open(ctx);
      // One second after the request on the test clock, the deletion is still PENDING and the visitor there.
      const { id, email } = await deletionBeforeItsDelay(ctx, api, "1s");
      await runDueDeletions(ctx, api);
      expectEqual(await api.state(id), "SUCCESS", "after the preset's delay");
      expectErrorBody(await api.visitor(email), 404, 1404, "Visitor not found");
    },
  },
]);
