import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { IdSource } from "../ports/ids.port.ts";
import { identitiesOfEvent } from "../profiles/stitching.rules.ts";
import { identifyVisitor } from "../visitors/visitor-id.rules.ts";
import { readCollectRequest } from "./collect.rules.ts";
import { describeCollectedEvent } from "./event.rules.ts";

const ids: IdSource = { randomHex: () => "n".repeat(32), randomToken: () => "t", randomUnit: () => 0 };

/** The visitor ID attributes of acme/main (demo.md). */
const visitorIdAttributes = [
  { id: 5120, name: "email_address", parameter: "email_address" },
  { id: 5121, name: "customer_id", parameter: "customer_id" },
];

function collect(query: string, cookieHeader: string | null = null) {
  const request = readCollectRequest({
    method: "GET",
    query: new URLSearchParams(query),
    body: null,
    referer: "https://shop.example.com/p",
    cookieHeader,
    isKnownProfile: () => true,
  });
  assert.ok(request.ok);
  const identity = identifyVisitor(request.value.visitor, ids);
  return describeCollectedEvent(request.value, identity, 1_700_000_000_000, visitorIdAttributes);
}

describe("the stored event (DEC-COL-09, COL-14)", () => {
  it("keeps the custom parameters and stores the resolved visitor IDs where known", () => {
    const event = collect(
      "svc_account=acme&svc_event=view&svc_visitor_id=v1&svc_firstparty_visitor_id=f1&color=red&cb=9",
      "TAPID=acme/main>t1|",
    );
    assert.deepEqual(event, {
      account: "acme",
      profile: "main",
      visitorId: "t1",
      visitorIdSource: "tapid",
      thirdPartyVisitorId: "t1",
      firstPartyVisitorId: "f1",
      event: "view",
      datasource: null,
      traceId: null,
      receivedAt: 1_700_000_000_000,
      data: Object.assign(Object.create(null) as object, {
        svc_account: "acme",
        svc_event: "view",
        svc_visitor_id: "t1",
        svc_firstparty_visitor_id: "f1",
        color: "red",
        svc_referrer_host: "shop.example.com",
        svc_thirdparty_visitor_id: "t1",
      }),
    });
  });

  it("[VID-05] with skip, the third-party ID is unknown and not stored", () => {
    const event = collect(
      "svc_account=acme&svc_visitor_id=v1&svc_skip_3rd_party_vid_cookies=true",
      "TAPID=acme/main>t1|",
    );
    assert.equal(event.visitorId, "v1");
    assert.equal(event.thirdPartyVisitorId, null);
    assert.equal("svc_thirdparty_visitor_id" in event.data, false);
  });

  it("[VID-02] a known visitor ID is stored as the visitor ID", () => {
    const event = collect(
      "svc_account=acme&svc_skip_3rd_party_vid_cookies=true&svc_visitor_id=__acme_main__5120_ann@example.com__&email_address=ann@example.com",
    );
    assert.equal(event.visitorId, "__acme_main__5120_ann@example.com__");
    assert.equal(event.data.email_address, "ann@example.com");
  });

  it("[DEC-COL-09] a svc_thirdparty_visitor_id the client sent is not stored as the service's own: only the TAPID's is", () => {
    const skipped = collect(
      "svc_account=acme&svc_visitor_id=V2&svc_thirdparty_visitor_id=spoof&svc_skip_3rd_party_vid_cookies=true",
    );
    assert.equal(skipped.thirdPartyVisitorId, null);
    assert.equal("svc_thirdparty_visitor_id" in skipped.data, false);
    const fromCookie = collect("svc_account=acme&svc_thirdparty_visitor_id=spoof", "TAPID=acme/main>t1|");
    assert.equal(fromCookie.data.svc_thirdparty_visitor_id, "t1");
  });

  it("[DEC-COL-11, VID-02] a known svc_visitor_id that loses to the TAPID still sets its visitor ID attribute's parameter", () => {
    const event = collect("svc_account=acme&svc_visitor_id=__acme_main__5121_cust-9__", "TAPID=acme/main>anon-z|");
    assert.equal(event.visitorId, "anon-z");
    assert.equal(event.data.svc_visitor_id, "anon-z");
    assert.equal(event.data.customer_id, "cust-9");
  });

  it("[DEC-COL-11, VID-04] a known svc_visitor_id that loses to svc_override_tapid sets the parameter too", () => {
    const event = collect("svc_account=acme&svc_override_tapid=o1&svc_visitor_id=__acme_main__5120_ann@example.com__");
    assert.equal(event.visitorId, "o1");
    assert.equal(event.data.email_address, "ann@example.com");
  });

  it("[DEC-COL-11] a parameter the request carries is kept as sent", () => {
    const event = collect(
      "svc_account=acme&svc_visitor_id=__acme_main__5121_cust-9__&customer_id=cust-1",
      "TAPID=acme/main>anon-z|",
    );
    assert.equal(event.data.customer_id, "cust-1");
  });

  it("[DEC-COL-11, VID-08] a parameter sent with a value no visitor ID takes gives way to the known visitor ID", () => {
    for (const unusable of ["%09", "%00abc", "a%0Ab"]) {
      const event = collect(
        `svc_account=acme&svc_visitor_id=__acme_main__5121_cust-9__&customer_id=${unusable}`,
        "TAPID=acme/main>anon-z|",
      );
      assert.equal(event.data.customer_id, "cust-9", unusable);
      const config = {
        name: "main",
        visitorIdAttributes,
        attributes: [],
        audiences: [],
        engines: [],
        fileDefinitions: [],
      };
      assert.deepEqual(identitiesOfEvent({ visitorId: event.visitorId, params: event.data }, "acme", "main", config), [
        { key: "__acme_main__5121_cust-9__", attributeId: 5121, value: "cust-9" },
      ]);
    }
  });

  it("[DEC-COL-11] nothing is added when the known ID is the resolved one, names another profile, or no visitor ID attribute", () => {
    const resolved = collect("svc_account=acme&svc_visitor_id=__acme_main__5121_cust-9__");
    assert.equal(resolved.visitorId, "__acme_main__5121_cust-9__");
    assert.equal("customer_id" in resolved.data, false);
    const otherProfile = collect(
      "svc_account=acme&svc_visitor_id=__acme_dev__5121_cust-9__",
      "TAPID=acme/main>anon-z|",
    );
    assert.equal("customer_id" in otherProfile.data, false);
    const notAnIdAttribute = collect(
      "svc_account=acme&svc_visitor_id=__acme_main__5201_7__",
      "TAPID=acme/main>anon-z|",
    );
    assert.deepEqual(Object.keys(notAnIdAttribute.data).sort(), [
      "svc_account",
      "svc_referrer_host",
      "svc_thirdparty_visitor_id",
      "svc_visitor_id",
    ]);
  });

  it("[DEC-COL-11, VID-08] the profile worker reads the known identity from the stored event", () => {
    const event = collect("svc_account=acme&svc_visitor_id=__acme_main__5121_cust-9__", "TAPID=acme/main>anon-z|");
    const config = {
      name: "main",
      visitorIdAttributes,
      attributes: [],
      audiences: [],
      engines: [],
      fileDefinitions: [],
    };
    assert.deepEqual(identitiesOfEvent({ visitorId: event.visitorId, params: event.data }, "acme", "main", config), [
      { key: "__acme_main__5121_cust-9__", attributeId: 5121, value: "cust-9" },
    ]);
  });
});
