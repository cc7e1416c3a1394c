import fc from "fast-check";
import type { HttpAnswer } from "../harness/client.ts";
import { expectEqual, expectStatus, expectTrue, fail } from "../harness/expect.ts";
import { defineScenarios, type ScenarioContext } from "../harness/scenario.ts";
import {
  collectPost,
  expectTapidAttributes,
  readTapid,
  storedEvent,
  type TapidEntryView,
  tapidSetCookie,
  writeTapid,
} from "./collect-support.ts";

/** One request's identity inputs, for the precedence and cookie properties. */
interface IdentityCase {
  readonly override: string | null;
  /** This account/profile's entry in the TAPID cookie sent. */
  readonly tapid: string | null;
  /** Another account/profile's entry, before ours in the cookie sent. */
  readonly otherEntry: boolean;
  readonly visitorId: string | null;
  readonly firstParty: { readonly via: "param" | "utag_main"; readonly value: string } | null;
  readonly skip: boolean | "true";
  readonly delete: boolean | "true";
}

const id = fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/);
const flag = fc.constantFrom<boolean | "true">(false, false, true, "true");
const identityCase: fc.Arbitrary<IdentityCase> = fc.record({
  override: fc.option(id, { nil: null, freq: 3 }),
  tapid: fc.option(id, { nil: null }),
  otherEntry: fc.boolean(),
  visitorId: fc.option(id, { nil: null }),
  firstParty: fc.option(fc.record({ via: fc.constantFrom<"param" | "utag_main">("param", "utag_main"), value: id }), {
    nil: null,
  }),
  skip: flag,
  delete: flag,
});

function ownKey(ctx: ScenarioContext): string {
  return `${ctx.fixtures.account}/${ctx.fixtures.profile}`;
}

/** The TAPID entry of another account/profile (the fixtures' other account; demo: globex/main). */
function otherEntryOf(ctx: ScenarioContext): TapidEntryView {
  return { key: `${ctx.fixtures.otherAccount}/${ctx.fixtures.otherAccountProfile}`, id: "other-visitor" };
}

/** Sends the case as a POST with its parameters and cookies; the answer and the trace id. */
async function sendCase(
  ctx: ScenarioContext,
  given: IdentityCase,
  extra: Record<string, unknown> = {},
): Promise<{ answer: HttpAnswer; traceId: string }> {
  const traceId = ctx.uniqueId("identity");
  const body: Record<string, unknown> = {
    svc_account: ctx.fixtures.account,
    svc_profile: ctx.fixtures.profile,
    svc_trace_id: traceId,
    ...extra,
  };
  if (given.override !== null) body.svc_override_tapid = given.override;
  if (given.visitorId !== null) body.svc_visitor_id = given.visitorId;
  if (given.firstParty?.via === "param") body.svc_firstparty_visitor_id = given.firstParty.value;
  if (given.skip) body.svc_skip_3rd_party_vid_cookies = given.skip;
  if (given.delete) body.svc_delete_3rd_party_vid_cookies = given.delete;
  const entries = [
    ...(given.otherEntry ? [otherEntryOf(ctx)] : []),
    ...(given.tapid !== null ? [{ key: ownKey(ctx), id: given.tapid }] : []),
  ];
  const cookies = [
    ...(entries.length ? [`TAPID=${writeTapid(entries)}`] : []),
    ...(given.firstParty?.via === "utag_main"
      ? [`utag_main=v_id:${given.firstParty.value}$_sn:2$_ss:0$ses_id:1700000000000%3Bexp-session`]
      : []),
  ];
  const answer = await collectPost(ctx, body, { headers: cookies.length ? { cookie: cookies.join("; ") } : {} });
  expectStatus(answer, 200);
  return { answer, traceId };
}

/** DEC-COL-09: the visitor ID the case must get; null means a new one. */
function expectedVisitor(given: IdentityCase): string | null {
  const readsTapid = !given.skip && !given.delete;
  return given.override ?? (readsTapid ? given.tapid : null) ?? given.visitorId ?? given.firstParty?.value ?? null;
}

type CookieExpectation =
  | { kind: "none" }
  | { kind: "expire" }
  | { kind: "write"; entries: (resolved: string) => TapidEntryView[] };

/** DEC-COL-10: what the answer must do to TAPID. */
function expectedCookie(ctx: ScenarioContext, given: IdentityCase): CookieExpectation {
  const others = given.otherEntry ? [otherEntryOf(ctx)] : [];
  const own = (value: string) => ({ key: ownKey(ctx), id: value });
  if (given.override !== null) return { kind: "write", entries: () => [own(given.override as string), ...others] };
  if (given.delete) {
    if (given.tapid === null) return { kind: "none" };
    return others.length === 0 ? { kind: "expire" } : { kind: "write", entries: () => others };
  }
  if (given.skip || given.tapid !== null) return { kind: "none" };
  return { kind: "write", entries: (resolved) => [own(resolved), ...others] };
}

function checkCookie(ctx: ScenarioContext, given: IdentityCase, answer: HttpAnswer, resolved: string): void {
  const expected = expectedCookie(ctx, given);
  const cookie = tapidSetCookie(answer);
  if (expected.kind === "none") {
    if (cookie !== null) fail(`${answer.request}: expected no TAPID Set-Cookie, got ${cookie.header}`);
    return;
  }
  if (cookie === null)
    fail(
      `${answer.request}: expected a TAPID Set-Cookie (${expected.kind}), got none; Set-Cookie headers: ${JSON.stringify(answer.setCookies)}`,
    );
  if (expected.kind === "expire") {
    expectEqual(cookie.attributes.get("max-age"), "0", "Max-Age of the emptied TAPID", answer);
    expectEqual(readTapid(cookie.value), [], "entries of the emptied TAPID", answer);
    return;
  }
  expectTapidAttributes(cookie, "31536000");
  expectEqual(readTapid(cookie.value), expected.entries(resolved), "TAPID entries", answer);
}

/** VID-*, DEC-COL-09 to 11: how events are tied to visitors, and the TAPID cookie. */
export const identityScenarios = defineScenarios("identity", [
  {
    title: "[VID-01, DEC-COL-09] events with the same svc_visitor_id are stored under that one visitor",
    needs: ["event-log"],
    async run(ctx) {
      const visitor = ctx.uniqueId("visitor");
      const first = await sendCase(ctx, {
        override: null,
        tapid: null,
        otherEntry: false,
        visitorId: visitor,
        firstParty: null,
        skip: false,
        delete: false,
      });
      const second = await sendCase(ctx, {
        override: null,
        tapid: null,
        otherEntry: false,
        visitorId: visitor,
        firstParty: null,
        skip: true,
        delete: false,
      });
      for (const { traceId } of [first, second]) {
        const event = await storedEvent(ctx, traceId);
        expectEqual([event.visitorId, event.data.svc_visitor_id], [visitor, visitor], "visitor ID");
      }
    },
  },
  {
    title:
      "[VID-09, DEC-COL-09] events without any visitor ID each start a new visitor with a new random ID, which the TAPID cookie then carries",
    needs: ["event-log"],
    async run(ctx) {
      const none: IdentityCase = {
        override: null,
        tapid: null,
        otherEntry: false,
        visitorId: null,
        firstParty: null,
        skip: false,
        delete: false,
      };
      const first = await sendCase(ctx, none);
      const second = await sendCase(ctx, none);
      const visitors = [
        (await storedEvent(ctx, first.traceId)).visitorId,
        (await storedEvent(ctx, second.traceId)).visitorId,
      ];
      expectTrue(
        visitors.every((visitor) => visitor.length >= 16),
        `new visitor IDs are long random values: ${visitors.join(", ")}`,
      );
      expectTrue(visitors[0] !== visitors[1], `two anonymous events got the same visitor ${visitors[0]}`);
      expectEqual(
        readTapid(tapidSetCookie(first.answer)?.value ?? ""),
        [{ key: ownKey(ctx), id: visitors[0] as string }],
        "TAPID of the first answer",
      );
    },
  },
  {
    title:
      "[VID-03, DEC-COL-09] the TAPID entry beats svc_visitor_id, which beats the first-party ID (svc_firstparty_visitor_id or v_id in utag_main)",
    needs: ["event-log"],
    async run(ctx) {
      const base: IdentityCase = {
        override: null,
        tapid: null,
        otherEntry: true,
        visitorId: null,
        firstParty: null,
        skip: false,
        delete: false,
      };
      const cases: Array<[IdentityCase, string]> = [
        [
          {
            ...base,
            tapid: "from-tapid",
            visitorId: "from-param",
            firstParty: { via: "param", value: "from-first-party" },
          },
          "from-tapid",
        ],
        [{ ...base, visitorId: "from-param", firstParty: { via: "utag_main", value: "from-utag-main" } }, "from-param"],
        [{ ...base, firstParty: { via: "utag_main", value: "from-utag-main" } }, "from-utag-main"],
        [{ ...base, firstParty: { via: "param", value: "from-first-party" } }, "from-first-party"],
      ];
      for (const [given, visitor] of cases) {
        const { traceId } = await sendCase(ctx, given);
        expectEqual((await storedEvent(ctx, traceId)).visitorId, visitor, `visitor of ${JSON.stringify(given)}`);
      }
    },
  },
  {
    title:
      "[VID-03, VID-04, VID-05, VID-06, VID-09, DEC-COL-09] for any override, TAPID, svc_visitor_id, first-party ID, skip and delete, the stored visitor follows the precedence",
    kind: "property",
    needs: ["event-log"],
    async run(ctx) {
      await ctx.checkProperty(
        fc.asyncProperty(identityCase, async (given) => {
          const { traceId } = await sendCase(ctx, given);
          const event = await storedEvent(ctx, traceId);
          const expected = expectedVisitor(given);
          if (expected !== null) expectEqual(event.visitorId, expected, "visitor ID");
          else
            expectTrue(
              ![given.tapid, given.visitorId, given.firstParty?.value].includes(event.visitorId),
              `a new visitor ID, not one of the inputs: ${event.visitorId}`,
            );
          expectEqual(event.data.svc_visitor_id, event.visitorId, "svc_visitor_id stored");
        }),
        { numRuns: 25 },
      );
    },
  },
  {
    title:
      "[VID-04, VID-05, VID-06, VID-07, DEC-COL-10] for any override, TAPID, skip and delete, the TAPID Set-Cookie follows DEC-COL-10",
    kind: "property",
    async run(ctx) {
      await ctx.checkProperty(
        fc.asyncProperty(identityCase, async (given) => {
          const { answer } = await sendCase(ctx, given);
          const written = tapidSetCookie(answer);
          const resolved =
            expectedVisitor(given) ??
            readTapid(written?.value ?? "").find((entry) => entry.key === ownKey(ctx))?.id ??
            "";
          checkCookie(ctx, given, answer, resolved);
        }),
        { numRuns: 30 },
      );
    },
  },
  {
    title:
      "[VID-04, DEC-COL-10] svc_override_tapid overrides svc_visitor_id and the TAPID, and is written as the first TAPID entry",
    needs: ["event-log"],
    async run(ctx) {
      const given: IdentityCase = {
        override: "override-visitor",
        tapid: "tapid-visitor",
        otherEntry: true,
        visitorId: "param-visitor",
        firstParty: null,
        skip: false,
        delete: false,
      };
      const { answer, traceId } = await sendCase(ctx, given);
      const event = await storedEvent(ctx, traceId);
      expectEqual(
        [event.visitorId, event.data.svc_thirdparty_visitor_id],
        ["override-visitor", "override-visitor"],
        "visitor and third-party IDs",
      );
      checkCookie(ctx, given, answer, "override-visitor");
    },
  },
  {
    title: "[VID-05] svc_skip_3rd_party_vid_cookies=true: the TAPID cookie is neither read nor set",
    needs: ["event-log"],
    async run(ctx) {
      for (const tapid of ["tapid-visitor", null]) {
        const given: IdentityCase = {
          override: null,
          tapid,
          otherEntry: false,
          visitorId: "param-visitor",
          firstParty: null,
          skip: "true",
          delete: false,
        };
        const { answer, traceId } = await sendCase(ctx, given);
        expectEqual((await storedEvent(ctx, traceId)).visitorId, "param-visitor", "visitor ID");
        expectEqual(tapidSetCookie(answer), null, "TAPID Set-Cookie");
      }
    },
  },
  {
    title:
      "[VID-06] svc_delete_3rd_party_vid_cookies=true removes this account/profile's TAPID entry and keeps the others; an override prevents the deletion",
    needs: ["event-log"],
    async run(ctx) {
      const deleting: IdentityCase = {
        override: null,
        tapid: "tapid-visitor",
        otherEntry: true,
        visitorId: "param-visitor",
        firstParty: null,
        skip: false,
        delete: true,
      };
      const deleted = await sendCase(ctx, deleting);
      expectEqual(
        (await storedEvent(ctx, deleted.traceId)).visitorId,
        "param-visitor",
        "the deleted TAPID is not read",
      );
      checkCookie(ctx, deleting, deleted.answer, "param-visitor");
      const overriding: IdentityCase = { ...deleting, override: "override-visitor" };
      const kept = await sendCase(ctx, overriding);
      checkCookie(ctx, overriding, kept.answer, "override-visitor");
    },
  },
  {
    title:
      "[VID-07, DEC-COL-10] when removing the account/profile's entry empties TAPID, the answer sets it with Max-Age=0",
    async run(ctx) {
      const given: IdentityCase = {
        override: null,
        tapid: "only-entry",
        otherEntry: false,
        visitorId: null,
        firstParty: null,
        skip: false,
        delete: "true",
      };
      const { answer } = await sendCase(ctx, given);
      const cookie = tapidSetCookie(answer);
      if (cookie === null) fail("expected a TAPID Set-Cookie with Max-Age=0");
      expectTapidAttributes(cookie, "0");
      expectEqual(cookie.value, "", "value of the emptied TAPID");
    },
  },
  {
    title:
      "[DEC-COL-10] a new visitor's TAPID is written first with Path=/, Max-Age=31536000, HttpOnly, Secure, SameSite=None; an existing entry is not rewritten",
    async run(ctx) {
      const fresh: IdentityCase = {
        override: null,
        tapid: null,
        otherEntry: true,
        visitorId: "param-visitor",
        firstParty: null,
        skip: false,
        delete: false,
      };
      const first = await sendCase(ctx, fresh);
      checkCookie(ctx, fresh, first.answer, "param-visitor");
      const known = await sendCase(ctx, { ...fresh, tapid: "param-visitor" });
      expectEqual(tapidSetCookie(known.answer), null, "TAPID Set-Cookie when the entry exists");
    },
  },
  {
    title: "[DEC-COL-10] a TAPID ID with characters not allowed in a cookie is percent-encoded, and read back decoded",
    needs: ["event-log"],
    async run(ctx) {
      const special = 'ann b|c>d;é,"x"';
      const written = await sendCase(ctx, {
        override: special,
        tapid: null,
        otherEntry: false,
        visitorId: null,
        firstParty: null,
        skip: false,
        delete: false,
      });
      const cookie = tapidSetCookie(written.answer);
      if (cookie === null) fail("expected a TAPID Set-Cookie");
      expectTrue(
        /^[\x21\x23-\x2B\x2D-\x3A\x3C-\x5B\x5D-\x7E]*$/.test(cookie.value),
        `TAPID value holds only cookie characters: ${cookie.value}`,
      );
      expectEqual(readTapid(cookie.value), [{ key: ownKey(ctx), id: special }], "TAPID entries, decoded");
      const traceId = ctx.uniqueId("encoded");
      const answer = await collectPost(
        ctx,
        { svc_account: ctx.fixtures.account, svc_profile: ctx.fixtures.profile, svc_trace_id: traceId },
        { headers: { cookie: `TAPID=${cookie.value}` } },
      );
      expectStatus(answer, 200);
      expectEqual((await storedEvent(ctx, traceId)).visitorId, special, "visitor ID read from the encoded TAPID");
    },
  },
  {
    title:
      "[VID-02, DEC-COL-11] a known visitor ID __<account>_<profile>__<attribute_id>_<value>__ is stored as the event's visitor ID",
    needs: ["event-log"],
    async run(ctx) {
      const known = `__${ctx.fixtures.account}_${ctx.fixtures.profile}__${ctx.fixtures.visitorIdAttributes.email.id}_${ctx.uniqueId("ann")}@example.com__`;
      const { traceId } = await sendCase(ctx, {
        override: null,
        tapid: null,
        otherEntry: false,
        visitorId: known,
        firstParty: null,
        skip: true,
        delete: false,
      });
      const event = await storedEvent(ctx, traceId);
      expectEqual([event.visitorId, event.data.svc_visitor_id], [known, known], "known visitor ID");
    },
  },
  {
    title:
      "[VID-08, COL-14, DEC-COL-11] a known user identifier sent as a custom parameter (email_address) is stored with the event for the visitor ID attribute",
    needs: ["event-log"],
    async run(ctx) {
      const email = `${ctx.uniqueId("known")}@example.com`;
      const anonymous = ctx.uniqueId("anon");
      const { email: emailAttribute, customer: customerAttribute } = ctx.fixtures.visitorIdAttributes;
      const identifiers = { [emailAttribute.parameter]: email, [customerAttribute.parameter]: "C-1" };
      const { traceId } = await sendCase(
        ctx,
        {
          override: null,
          tapid: null,
          otherEntry: false,
          visitorId: anonymous,
          firstParty: null,
          skip: true,
          delete: false,
        },
        identifiers,
      );
      const event = await storedEvent(ctx, traceId);
      expectEqual(
        [event.visitorId, event.data[emailAttribute.parameter], event.data[customerAttribute.parameter]],
        [anonymous, email, "C-1"],
        "anonymous visitor and identifiers",
      );
    },
  },
  {
    title: "[DEC-COL-09] the event stores svc_thirdparty_visitor_id and svc_firstparty_visitor_id where known",
    needs: ["event-log"],
    async run(ctx) {
      const { traceId } = await sendCase(ctx, {
        override: null,
        tapid: "third-party",
        otherEntry: false,
        visitorId: "param-visitor",
        firstParty: { via: "utag_main", value: "first-party" },
        skip: false,
        delete: false,
      });
      const event = await storedEvent(ctx, traceId);
      expectEqual(
        [
          event.visitorId,
          event.data.svc_visitor_id,
          event.data.svc_thirdparty_visitor_id,
          event.data.svc_firstparty_visitor_id,
        ],
        ["third-party", "third-party", "third-party", "first-party"],
        "stored visitor IDs",
      );
      const unknown = await sendCase(ctx, {
        override: null,
        tapid: null,
        otherEntry: false,
        visitorId: "param-visitor",
        firstParty: null,
        skip: true,
        delete: false,
      });
      const data = (await storedEvent(ctx, unknown.traceId)).data;
      expectTrue(
        !("svc_thirdparty_visitor_id" in data) && !("svc_firstparty_visitor_id" in data),
        `unknown IDs are not stored: ${JSON.stringify(data)}`,
      );
    },
  },
]);
