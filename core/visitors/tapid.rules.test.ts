import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseCookie } from "cookie";
import fc from "fast-check";
import { firstPartyIdFromUtagMain, parseCookies, readCollectCookies, readCookieValue } from "./cookies.rules.ts";
import {
  encodeTapidId,
  maxTapidCookieLength,
  parseTapid,
  planTapidCookie,
  serializeTapid,
  type TapidEntry,
  type TapidPlanInput,
  tapidSetCookie,
} from "./tapid.rules.ts";

const name = fc.stringMatching(/^[A-Za-z0-9_~-]{1,8}$/);
/** Well-formed text (no lone surrogates, which no cookie can carry). */
const visitorId = fc.string({ minLength: 1, maxLength: 16, unit: "grapheme" });
const entry: fc.Arbitrary<TapidEntry> = fc.record(
  { account: name, profile: name, visitorId },
  { noNullPrototype: true },
);
/** Entries with distinct account/profile pairs, as the service writes them. */
const entries = fc.uniqueArray(entry, { selector: (item) => `${item.account}/${item.profile}`, maxLength: 5 });

function plan(overrides: Partial<TapidPlanInput>): ReturnType<typeof planTapidCookie> {
  return planTapidCookie({
    entries: [],
    account: "acme",
    profile: "main",
    override: null,
    resolvedVisitorId: "r",
    skip: false,
    delete: false,
    ...overrides,
  });
}

describe("TAPID value (DEC-COL-10)", () => {
  it("is acct/prof>id| per entry, in order", () => {
    const value = serializeTapid([
      { account: "acme", profile: "main", visitorId: "a1" },
      { account: "globex", profile: "main", visitorId: "g1" },
    ]);
    assert.equal(value, "acme/main>a1|globex/main>g1|");
    assert.deepEqual(parseTapid(value), [
      { account: "acme", profile: "main", visitorId: "a1" },
      { account: "globex", profile: "main", visitorId: "g1" },
    ]);
  });

  it("writes an ID raw when every character is allowed in a cookie, else percent-encoded", () => {
    assert.equal(encodeTapidId("0190a-b_c.~!*'()"), "0190a-b_c.~!*'()");
    assert.equal(encodeTapidId("__acme_main__5120_ann@example.com__"), "__acme_main__5120_ann@example.com__");
    assert.equal(encodeTapidId("a b"), "a%20b");
    assert.equal(encodeTapidId("a;b,c"), "a%3Bb%2Cc");
    assert.equal(encodeTapidId("x|y>z"), "x%7Cy%3Ez");
    assert.equal(encodeTapidId("50%"), "50%25");
    assert.equal(encodeTapidId("é"), "%C3%A9");
  });

  it("every serialised value holds only cookie-octets (RFC 6265)", () => {
    fc.assert(
      fc.property(entries, (list) => {
        assert.match(serializeTapid(list), /^[\x21\x23-\x2B\x2D-\x3A\x3C-\x5B\x5D-\x7E]*$/);
      }),
    );
  });

  it("parse(serialise(entries)) gives the entries back, for any IDs", () => {
    fc.assert(fc.property(entries, (list) => assert.deepEqual(parseTapid(serializeTapid(list)), list)));
  });

  it("an unpaired surrogate cannot break the encoder", () => {
    assert.equal(encodeTapidId("a\uD800b"), "a%EF%BF%BDb");
  });

  it("skips malformed pieces and reads a value percent-encoded as a whole", () => {
    assert.deepEqual(parseTapid("garbage|acme/main>a1|>x|/p>y|acme>z|acme/>w|acme/main>|"), [
      { account: "acme", profile: "main", visitorId: "a1" },
    ]);
    assert.deepEqual(parseTapid("acme%2Fmain%3Ea1%7C"), [{ account: "acme", profile: "main", visitorId: "a1" }]);
  });

  it("parsing never throws on any text", () => {
    fc.assert(fc.property(fc.string(), (text) => void parseTapid(text)));
  });
});

describe("TAPID cookie plan (DEC-COL-10, VID-04 to VID-07)", () => {
  const globex = { account: "globex", profile: "main", visitorId: "g" };
  const own = { account: "acme", profile: "main", visitorId: "t" };

  it("[VID-04] an override is written as the account/profile's entry, moved first", () => {
    assert.deepEqual(plan({ entries: [globex, own], override: "o" }), {
      action: { kind: "write", value: "acme/main>o|globex/main>g|" },
      thirdPartyVisitorId: "o",
    });
  });

  it("[VID-03] no entry yet: the resolved ID is written as a new first entry", () => {
    assert.deepEqual(plan({ entries: [globex], resolvedVisitorId: "r" }), {
      action: { kind: "write", value: "acme/main>r|globex/main>g|" },
      thirdPartyVisitorId: "r",
    });
  });

  it("an existing entry is left as it is (no Set-Cookie)", () => {
    assert.deepEqual(plan({ entries: [globex, own], resolvedVisitorId: "t" }), {
      action: { kind: "none" },
      thirdPartyVisitorId: "t",
    });
  });

  it("[VID-05] skip neither reads nor writes", () => {
    assert.deepEqual(plan({ entries: [], skip: true }), { action: { kind: "none" }, thirdPartyVisitorId: null });
    assert.deepEqual(plan({ entries: [own], skip: true }), { action: { kind: "none" }, thirdPartyVisitorId: null });
  });

  it("[VID-06] delete removes the entry and keeps the others in order", () => {
    assert.deepEqual(
      plan({ entries: [globex, own, { account: "acme", profile: "dev", visitorId: "d" }], delete: true }),
      {
        action: { kind: "write", value: "globex/main>g|acme/dev>d|" },
        thirdPartyVisitorId: null,
      },
    );
  });

  it("[VID-07] a cookie emptied by delete is expired with Max-Age=0", () => {
    assert.deepEqual(plan({ entries: [own], delete: true }).action, { kind: "expire" });
    assert.equal(tapidSetCookie({ kind: "expire" }), "TAPID=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=None");
  });

  it("[VID-06] delete without an entry changes nothing", () => {
    assert.deepEqual(plan({ entries: [globex], delete: true }).action, { kind: "none" });
  });

  it("[VID-06] an override prevents the deletion", () => {
    assert.deepEqual(plan({ entries: [own], delete: true, override: "o" }).action, {
      kind: "write",
      value: "acme/main>o|",
    });
  });

  it("the Set-Cookie carries Path=/; Max-Age=31536000; HttpOnly; Secure; SameSite=None", () => {
    assert.equal(
      tapidSetCookie({ kind: "write", value: "acme/main>r|" }),
      "TAPID=acme/main>r|; Path=/; Max-Age=31536000; HttpOnly; Secure; SameSite=None",
    );
    assert.equal(tapidSetCookie({ kind: "none" }), null);
  });

  it("a value browsers would drop (name and value over 4,096 bytes) keeps the entries that fit, newest first", () => {
    const long = (n: number) => ({ account: `a${n}`, profile: "main", visitorId: "x".repeat(1200) });
    const result = plan({ entries: [long(1), long(2), long(3), long(4)], resolvedVisitorId: "r" });
    assert.equal(result.action.kind, "write");
    const value = (result.action as { value: string }).value;
    assert.ok(`TAPID=${value}`.length <= maxTapidCookieLength, `${value.length}`);
    assert.deepEqual(
      parseTapid(value).map((entry) => entry.account),
      ["acme", "a1", "a2", "a3"],
    );
  });

  it("[VID-06] a delete whose other entries cannot fit in a cookie at all expires the cookie instead of leaving the entry", () => {
    const huge = { account: "globex", profile: "main", visitorId: "x".repeat(5000) };
    assert.deepEqual(plan({ entries: [own, huge], delete: true }).action, { kind: "expire" });
  });

  it("an ID whose own entry cannot fit in a cookie (1,024 characters beyond ASCII, percent-encoded) is not written: the cookie stays as it was", () => {
    const wide = "é".repeat(1024);
    assert.deepEqual(plan({ entries: [own], override: wide }), { action: { kind: "none" }, thirdPartyVisitorId: wide });
    assert.deepEqual(plan({ entries: [], resolvedVisitorId: wide }), {
      action: { kind: "none" },
      thirdPartyVisitorId: wide,
    });
    // 1,024 ASCII characters fit.
    assert.equal(plan({ entries: [], override: "x".repeat(1024) }).action.kind, "write");
  });

  it("for every combination: other accounts' entries are kept, in order, and ours is first or gone", () => {
    fc.assert(
      fc.property(
        entries,
        fc.option(visitorId, { nil: null }),
        fc.boolean(),
        fc.boolean(),
        (list, override, skip, del) => {
          const result = plan({ entries: list, override, skip, delete: del, resolvedVisitorId: "r" });
          const others = list.filter((item) => item.account !== "acme" || item.profile !== "main");
          const hadOwn = others.length !== list.length;
          if (result.action.kind === "write") {
            const written = parseTapid(result.action.value);
            const ownEntries = written.filter((item) => item.account === "acme" && item.profile === "main");
            assert.ok(ownEntries.length <= 1);
            // Others in order, as many as fit in a cookie: all of them whenever the whole value fits.
            assert.deepEqual(written.slice(ownEntries.length), others.slice(0, written.length - ownEntries.length));
            const whole = serializeTapid([...written.slice(0, ownEntries.length), ...others]);
            if (`TAPID=${whole}`.length <= maxTapidCookieLength)
              assert.deepEqual(written.slice(ownEntries.length), others);
            if (ownEntries.length === 1) assert.equal(ownEntries[0]!.visitorId, result.thirdPartyVisitorId);
          }
          if (override !== null) assert.equal(result.action.kind, "write");
          if (override === null && del)
            assert.equal(result.action.kind, !hadOwn ? "none" : others.length === 0 ? "expire" : "write");
          if (override === null && !del && skip) assert.equal(result.action.kind, "none");
          if (override === null && !del && !skip) assert.equal(result.action.kind, hadOwn ? "none" : "write");
        },
      ),
    );
  });
});

describe("cookies", () => {
  it("reads a cookie's raw value, the first of two, without quotes", () => {
    assert.equal(readCookieValue("a=1; TAPID=acme/main>x%7Cy|; TAPID=second", "TAPID"), "acme/main>x%7Cy|");
    assert.equal(readCookieValue('TAPID="q"', "TAPID"), "q");
    assert.equal(readCookieValue("XTAPID=1", "TAPID"), null);
    assert.equal(readCookieValue(null, "TAPID"), null);
  });

  it("[DEC-COL-09, DEC-COL-10] reads a header once: every value of each name in order, raw, without quotes", () => {
    const cookies = parseCookies(' a = 1 ;junk; TAPID="acme/main>x|"; utag_main=v_id:1%3Bexp; TAPID=g/m>y%7Cz|; b=');
    assert.deepEqual(
      [...cookies],
      [
        ["a", ["1"]],
        ["TAPID", ["acme/main>x|", "g/m>y%7Cz|"]],
        ["utag_main", ["v_id:1%3Bexp"]],
        ["b", [""]],
      ],
    );
    assert.equal(parseCookies(null).size, 0);
    assert.equal(parseCookies("").size, 0);
  });

  it("the first value of each name is the one the cookie package reads from the whole header", () => {
    const unquoted = (value: string) =>
      value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
    const pair = fc
      .tuple(fc.constantFrom("TAPID", "utag_main", " a", "b ", "", "=", '"'), fc.string({ maxLength: 6 }))
      .map(([name, value]) => `${name}=${value}`);
    const header = fc.oneof(
      fc.string(),
      fc.array(fc.oneof(pair, fc.string({ maxLength: 4 }))).map((p) => p.join(";")),
    );
    fc.assert(
      fc.property(header, (text) => {
        const whole = parseCookie(text, { decode: unquoted });
        const firsts = new Map([...parseCookies(text)].map(([name, values]) => [name, values[0]]));
        // A name-less pair is no cookie; the package reads one only when it is the whole header's last.
        firsts.delete("");
        delete whole[""];
        assert.deepEqual(firsts, new Map(Object.entries(whole)));
      }),
    );
  });

  it("[DEC-COL-09, DEC-COL-10] reads what collection needs in the header's one read: every TAPID, utag_main's v_id", () => {
    assert.deepEqual(
      readCollectCookies('TAPID="acme/main>x|"; utag_main=_sn:1%24v_id%3A0190abc; TAPID=g/m>y|; utag_main=v_id:2'),
      {
        tapid: ["acme/main>x|", "g/m>y|"],
        utagMainVisitorId: "0190abc",
        sent: 'TAPID="acme/main>x|"; utag_main=_sn:1%24v_id%3A0190abc; TAPID=g/m>y|; utag_main=v_id:2',
      },
    );
    assert.deepEqual(readCollectCookies("a=1; utag_main=_sn:1; JSESSIONID=s"), {
      tapid: [],
      utagMainVisitorId: null,
      sent: "utag_main=_sn:1",
    });
    assert.deepEqual(readCollectCookies(null), { tapid: [], utagMainVisitorId: null, sent: null });
  });

  it("[DEC-COL-09] finds v_id in utag_main, raw or percent-encoded", () => {
    assert.equal(firstPartyIdFromUtagMain("v_id:0190abc$_sn:1$ses_id:17%3Bexp-session"), "0190abc");
    assert.equal(firstPartyIdFromUtagMain("_sn:1%24v_id%3A0190abc%3Bexp-session"), "0190abc");
    assert.equal(firstPartyIdFromUtagMain("_sn:1$_ss:0"), null);
    assert.equal(firstPartyIdFromUtagMain("v_id:$_sn:1"), null);
  });

  it("never throw on any header", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        readCookieValue(text, "TAPID");
        parseCookies(text);
        readCollectCookies(text);
        firstPartyIdFromUtagMain(text);
      }),
    );
  });
});

describe("TAPID entries from a hostile cookie", () => {
  it("drops entries whose account or profile is not a valid name, so nothing of them reaches Set-Cookie", () => {
    const hostile = "globex%2Fmain%0D%0AX%3A%20y%3Eabc%7Cacme/main%3B%20Domain%3Devil.example>def|acme/main>ok|";
    assert.deepEqual(parseTapid(hostile), [{ account: "acme", profile: "main", visitorId: "ok" }]);
    const wholeEncoded = encodeURIComponent("bad name/main>x|acme/dev>y|");
    assert.deepEqual(parseTapid(wholeEncoded), [{ account: "acme", profile: "dev", visitorId: "y" }]);
  });

  it("whatever the cookie holds, the written value has only cookie-safe characters", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (raw) => {
        const written = serializeTapid(parseTapid(raw));
        assert.match(written, /^[\x21\x23-\x2B\x2D-\x3A\x3C-\x5B\x5D-\x7E]*$/);
      }),
      { seed: 11, numRuns: 500 },
    );
  });
});
