/** The collected-events part of the store contract (COL-16, DEC-COL-08), run against every store implementation. */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { CollectedEvent, StoredEvent, Stores } from "../../core/ports/index.ts";
import { maxVisitorIdsPerQuery } from "../../core/ports/index.ts";
import { sampleEvent } from "../../testing/fixtures.ts";

function withoutSeq(event: StoredEvent): CollectedEvent {
  const { seq: _seq, ...rest } = event;
  return rest;
}

export function describeEventStoreContract(name: string, open: () => Promise<Stores>): void {
  describe(`${name}: collected events`, () => {
    let stores: Stores;
    beforeEach(async () => {
      stores = await open();
    });
    afterEach(async () => {
      await stores.close();
    });

    test("start empty, and appending nothing stores nothing", async () => {
      await stores.events.append([]);
      expect(await stores.events.query({ limit: 10 })).toEqual([]);
    });

    test("an event reads back deep-equal, with every field and its data", async () => {
      const event = sampleEvent({
        visitorIdSource: "tapid",
        thirdPartyVisitorId: "t-1",
        firstPartyVisitorId: "f-1",
        datasource: "abc123",
        traceId: "trace-1",
        data: {
          svc_account: "acme",
          n: 1.5,
          flag: false,
          none: null,
          list: [1, "two", { three: 3 }],
          deep: { a: { b: { c: "d" } } },
          text: "é 😀 \u0000",
        },
      });
      await stores.events.append([event]);
      const [stored] = await stores.events.query({ limit: 10 });
      expect(withoutSeq(stored!)).toEqual(event);
    });

    test('an event\'s data keeps U+0000 and lone surrogates in its strings and keys, as sent (decisions of our own, "Text that a store cannot keep")', async () => {
      const data = { svc_account: "acme", nul: "a\u0000b", "k\u0000": 1, lone: "x\ud800y\udc00", "\udbff": ["\u0000"] };
      await stores.events.append([sampleEvent({ data })]);
      const [stored] = await stores.events.query({ limit: 1 });
      expect(stored!.data).toEqual(data);
    });

    test("__proto__ and constructor keys are kept as plain data (DEC-DLE-03)", async () => {
      const data = JSON.parse(
        '{"__proto__": {"polluted": true}, "constructor": {"prototype": 1}, "nested": {"__proto__": [1]}}',
      ) as Record<string, unknown>;
      await stores.events.append([sampleEvent({ data })]);
      const [stored] = await stores.events.query({ limit: 1 });
      expect(Object.keys(stored!.data)).toEqual(["__proto__", "constructor", "nested"]);
      expect(JSON.stringify(stored!.data)).toBe(JSON.stringify(data));
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    test("sequence numbers grow in append order, within a batch and across batches", async () => {
      await stores.events.append([sampleEvent({ traceId: "a" }), sampleEvent({ traceId: "b" })]);
      await stores.events.append([sampleEvent({ traceId: "c" })]);
      const stored = await stores.events.query({ limit: 10 });
      expect(stored.map((event) => event.traceId)).toEqual(["a", "b", "c"]);
      expect(stored[0]!.seq).toBeLessThan(stored[1]!.seq);
      expect(stored[1]!.seq).toBeLessThan(stored[2]!.seq);
    });

    test("a large batch is stored whole and in order", async () => {
      const batch = Array.from({ length: 2_500 }, (_, index) => sampleEvent({ traceId: `t${index}` }));
      await stores.events.append(batch);
      const first = await stores.events.query({ limit: 1000 });
      const rest = await stores.events.query({ limit: 2000, afterSeq: first.at(-1)!.seq });
      expect([...first, ...rest].map((event) => event.traceId)).toEqual(batch.map((event) => event.traceId));
    });

    test("every filter narrows the result, and filters combine", async () => {
      await stores.events.append([
        sampleEvent({
          traceId: "1",
          account: "acme",
          profile: "main",
          visitorId: "v1",
          event: "view",
          receivedAt: 1000,
        }),
        sampleEvent({
          traceId: "2",
          account: "acme",
          profile: "dev",
          visitorId: "v1",
          event: "view",
          receivedAt: 2000,
        }),
        sampleEvent({
          traceId: "3",
          account: "globex",
          profile: "main",
          visitorId: "v2",
          event: "purchase",
          receivedAt: 3000,
        }),
        sampleEvent({ traceId: "4", account: "acme", profile: "main", visitorId: "v2", event: null, receivedAt: 4000 }),
      ]);
      const traces = async (query: Parameters<Stores["events"]["query"]>[0]) =>
        (await stores.events.query(query)).map((event) => event.traceId);
      expect(await traces({ limit: 10, account: "acme" })).toEqual(["1", "2", "4"]);
      expect(await traces({ limit: 10, account: "acme", profile: "main" })).toEqual(["1", "4"]);
      expect(await traces({ limit: 10, visitorId: "v2" })).toEqual(["3", "4"]);
      expect(await traces({ limit: 10, event: "view" })).toEqual(["1", "2"]);
      expect(await traces({ limit: 10, traceId: "3" })).toEqual(["3"]);
      expect(await traces({ limit: 10, from: 2000, to: 3000 })).toEqual(["2", "3"]);
      expect(await traces({ limit: 10, account: "acme", from: 1500 })).toEqual(["2", "4"]);
      expect(await traces({ limit: 10, traceId: "nope" })).toEqual([]);
    });

    test("a search finds the events whose parameter names or values hold the text, quotes and all", async () => {
      await stores.events.append([
        sampleEvent({ traceId: "1", data: { svc_account: "acme", product: "Blue shoes" } }),
        sampleEvent({ traceId: "2", data: { svc_account: "acme", coupon_code: "SAVE10" } }),
        sampleEvent({ traceId: "3", data: { svc_account: "acme", note: 'say "hi" \\ 50%_off', n: 42 } }),
        sampleEvent({ traceId: "4", account: "globex", data: { svc_account: "globex", product: "red shoes" } }),
      ]);
      const traces = async (query: Parameters<Stores["events"]["query"]>[0]) =>
        (await stores.events.query(query)).map((event) => event.traceId);
      expect(await traces({ limit: 10, search: "shoes" })).toEqual(["1", "4"]);
      expect(await traces({ limit: 10, search: "coupon" })).toEqual(["2"]);
      expect(await traces({ limit: 10, search: '"hi" \\' })).toEqual(["3"]);
      // LIKE's wildcards are plain text, and case matters.
      expect(await traces({ limit: 10, search: "%_" })).toEqual(["3"]);
      expect(await traces({ limit: 10, search: "_off" })).toEqual(["3"]);
      expect(await traces({ limit: 10, search: "Shoes" })).toEqual([]);
      expect(await traces({ limit: 10, search: "shoes", account: "acme" })).toEqual(["1"]);
      expect(await traces({ limit: 1, search: "shoes", order: "desc" })).toEqual(["4"]);
      expect(await traces({ limit: 10, search: "nothing like it" })).toEqual([]);
    });

    test("an append with a mark sets that settings entry in the same commit, with or without events", async () => {
      await stores.events.append([sampleEvent({ traceId: "m1" })], { mark: { key: "import-progress.x", value: "1" } });
      expect(await stores.settings.get("import-progress.x")).toBe("1");
      await stores.events.append(
        Array.from({ length: 300 }, (_, index) => sampleEvent({ traceId: `n${index}` })),
        { mark: { key: "import-progress.x", value: "301" } },
      );
      expect(await stores.settings.get("import-progress.x")).toBe("301");
      await stores.events.append([], { mark: { key: "import-progress.y", value: "0" } });
      expect(await stores.settings.get("import-progress.y")).toBe("0");
      expect((await stores.events.query({ limit: 1000 })).length).toBe(301);
    });

    test("a query for several visitors pages through their events together, in sequence order", async () => {
      await stores.events.append([
        sampleEvent({ traceId: "1", visitorId: "v1" }),
        sampleEvent({ traceId: "2", visitorId: "v2" }),
        sampleEvent({ traceId: "3", visitorId: "v3" }),
        sampleEvent({ traceId: "4", visitorId: "v1" }),
        sampleEvent({ traceId: "5", visitorId: "v2", account: "globex" }),
        sampleEvent({ traceId: "6", visitorId: "v2" }),
      ]);
      const traces = async (query: Parameters<Stores["events"]["query"]>[0]) =>
        (await stores.events.query(query)).map((event) => event.traceId);
      const first = await stores.events.query({ limit: 2, account: "acme", profile: "main", visitorIds: ["v1", "v2"] });
      expect(first.map((event) => event.traceId)).toEqual(["1", "2"]);
      expect(
        await traces({
          limit: 10,
          account: "acme",
          profile: "main",
          visitorIds: ["v1", "v2"],
          afterSeq: first[1]!.seq,
        }),
      ).toEqual(["4", "6"]);
      expect(await traces({ limit: 10, visitorIds: ["v2"], beforeSeq: first[1]!.seq + 4 })).toEqual(["2", "5"]);
      expect(await traces({ limit: 10, visitorIds: [] })).toEqual([]);
      await expect(
        stores.events.query({
          limit: 10,
          visitorIds: Array.from({ length: maxVisitorIdsPerQuery + 1 }, (_, index) => `v${index}`),
        }),
      ).rejects.toThrow(RangeError);
      expect(
        await traces({
          limit: 10,
          visitorIds: Array.from({ length: maxVisitorIdsPerQuery }, (_, index) => `v${index}`),
        }),
      ).toEqual(["1", "2", "3", "4", "5", "6"]);
    });

    test("a read by visitor finds every event whether the per-visitor index holds it yet or not (EventStore.indexVisitors)", async () => {
      const visitorOf = (index: number) => (index % 3 === 0 ? "v1" : index % 3 === 1 ? "v2" : "v3");
      // More than two buckets of the SQL stores' index (4,096 sequence numbers each).
      await stores.events.append(
        Array.from({ length: 9_000 }, (_, index) => sampleEvent({ traceId: `t${index}`, visitorId: visitorOf(index) })),
      );
      const all = await stores.events.query({ limit: 10_000 });
      const expected = (visitors: readonly string[], after = 0) =>
        all.filter((event) => visitors.includes(event.visitorId) && event.seq > after).map((event) => event.traceId);
      const reads = async () => {
        const middle = all[4_500]!.seq;
        return [
          (await stores.events.query({ limit: 10_000, visitorId: "v1" })).map((event) => event.traceId),
          (
            await stores.events.query({ limit: 10_000, account: "acme", profile: "main", visitorIds: ["v2", "v3"] })
          ).map((event) => event.traceId),
          (await stores.events.query({ limit: 10_000, visitorIds: ["v3"], afterSeq: middle })).map((e) => e.traceId),
          (await stores.events.query({ limit: 3, visitorId: "v2", order: "desc" })).map((event) => event.traceId),
        ];
      };
      const wanted = [
        expected(["v1"]),
        expected(["v2", "v3"]),
        expected(["v3"], all[4_500]!.seq),
        expected(["v2"]).slice(-3).reverse(),
      ];
      expect(await reads()).toEqual(wanted);
      await stores.events.indexVisitors(all[5_000]!.seq);
      expect(await reads()).toEqual(wanted);
      // Again, or lower: nothing changes, and nothing is lost.
      await stores.events.indexVisitors(all[5_000]!.seq);
      await stores.events.indexVisitors(all[10]!.seq);
      expect(await reads()).toEqual(wanted);
      await stores.events.append([sampleEvent({ traceId: "late", visitorId: "v1" })]);
      await stores.events.indexVisitors(all.at(-1)!.seq);
      const v1 = await stores.events.query({ limit: 10_000, account: "acme", profile: "main", visitorId: "v1" });
      expect(v1.map((event) => event.traceId)).toEqual([...expected(["v1"]), "late"]);
      expect(await stores.events.query({ limit: 10, visitorId: "nobody" })).toEqual([]);
    });

    test("deleteVisitors removes a visitor's events whether the per-visitor index holds them yet or not (PRV-09)", async () => {
      await stores.events.append([
        sampleEvent({ traceId: "1", visitorId: "v1" }),
        sampleEvent({ traceId: "2", visitorId: "v2" }),
      ]);
      const [, second] = await stores.events.query({ limit: 10 });
      await stores.events.indexVisitors(second!.seq);
      await stores.events.append([
        sampleEvent({ traceId: "3", visitorId: "v1" }),
        sampleEvent({ traceId: "4", visitorId: "v2" }),
      ]);
      expect(await stores.events.deleteVisitors("acme", "main", ["v1"])).toBe(2);
      expect((await stores.events.query({ limit: 10 })).map((event) => event.traceId)).toEqual(["2", "4"]);
      const last = (await stores.events.query({ limit: 1, order: "desc" }))[0]!.seq;
      await stores.events.indexVisitors(last);
      expect(await stores.events.query({ limit: 10, visitorId: "v1" })).toEqual([]);
      expect((await stores.events.query({ limit: 10, visitorId: "v2" })).map((event) => event.traceId)).toEqual([
        "2",
        "4",
      ]);
      expect(await stores.events.deleteVisitors("acme", "main", ["v2"])).toBe(2);
      expect(await stores.events.query({ limit: 10 })).toEqual([]);
    });

    test("retention's removed events are gone from reads by visitor too, indexed or not", async () => {
      await stores.events.append(
        [1, 2, 3, 4].map((index) =>
          sampleEvent({ traceId: String(index), visitorId: "v1", receivedAt: index * 1_000 }),
        ),
      );
      const seqs = (await stores.events.query({ limit: 10 })).map((event) => event.seq);
      await stores.events.indexVisitors(seqs[2]!);
      expect(await stores.events.deleteReceivedBefore(3_500, { upToSeq: seqs[3]!, limit: 100 })).toBe(3);
      expect((await stores.events.query({ limit: 10, visitorId: "v1" })).map((event) => event.traceId)).toEqual(["4"]);
      await stores.events.indexVisitors(seqs[3]!);
      expect((await stores.events.query({ limit: 10, visitorId: "v1" })).map((event) => event.traceId)).toEqual(["4"]);
    });

    test("order, limit and paging by sequence number", async () => {
      await stores.events.append(["a", "b", "c", "d", "e"].map((traceId) => sampleEvent({ traceId })));
      const all = await stores.events.query({ limit: 10 });
      const traces = (events: StoredEvent[]) => events.map((event) => event.traceId);
      expect(traces(await stores.events.query({ limit: 2 }))).toEqual(["a", "b"]);
      expect(traces(await stores.events.query({ limit: 2, order: "desc" }))).toEqual(["e", "d"]);
      expect(traces(await stores.events.query({ limit: 2, afterSeq: all[1]!.seq }))).toEqual(["c", "d"]);
      expect(traces(await stores.events.query({ limit: 2, order: "desc", beforeSeq: all[3]!.seq }))).toEqual([
        "c",
        "b",
      ]);
    });

    test("changing an appended or a returned event does not change the stored one", async () => {
      const event = sampleEvent({ data: { list: [1] } });
      await stores.events.append([event]);
      (event.data.list as number[]).push(2);
      const [found] = await stores.events.query({ limit: 1 });
      (found!.data.list as number[]).push(3);
      expect((await stores.events.query({ limit: 1 }))[0]!.data).toEqual({ list: [1] });
    });

    test("deleteVisitors removes every event of the given visitor ids in the account and profile only (PRV-09)", async () => {
      await stores.events.append([
        sampleEvent({ traceId: "1", visitorId: "v1" }),
        sampleEvent({ traceId: "2", visitorId: "__acme_main__5120_ann@example.com__" }),
        sampleEvent({ traceId: "3", visitorId: "v2" }),
        sampleEvent({ traceId: "4", visitorId: "v1", profile: "dev" }),
        sampleEvent({ traceId: "5", visitorId: "v1", account: "globex" }),
        sampleEvent({ traceId: "6", visitorId: "v1" }),
      ]);
      expect(
        await stores.events.deleteVisitors("acme", "main", [
          "v1",
          "__acme_main__5120_ann@example.com__",
          "v1",
          "nobody",
        ]),
      ).toBe(3);
      expect((await stores.events.query({ limit: 10 })).map((event) => event.traceId)).toEqual(["3", "4", "5"]);
      expect(await stores.events.deleteVisitors("acme", "main", ["v1"])).toBe(0);
      expect(await stores.events.deleteVisitors("acme", "main", [])).toBe(0);
    });

    test("deleteVisitors handles more ids than one statement binds, and sequence numbers are not reused", async () => {
      const ids = Array.from({ length: 1_200 }, (_, index) => `v${index}`);
      await stores.events.append(ids.map((visitorId) => sampleEvent({ visitorId })));
      const last = (await stores.events.query({ limit: 1, order: "desc" }))[0]!.seq;
      expect(await stores.events.deleteVisitors("acme", "main", ids)).toBe(1_200);
      await stores.events.append([sampleEvent({ traceId: "after" })]);
      const [after] = await stores.events.query({ limit: 10 });
      expect(after!.traceId).toBe("after");
      expect(after!.seq).toBeGreaterThan(last);
    });

    test("deleteReceivedBefore removes the oldest events in commit order received before a time, every account's alike", async () => {
      await stores.events.append([
        sampleEvent({ traceId: "1", receivedAt: 1_000 }),
        sampleEvent({ traceId: "2", receivedAt: 2_000, account: "globex", profile: "web" }),
        sampleEvent({ traceId: "3", receivedAt: 2_999, profile: "dev" }),
        sampleEvent({ traceId: "4", receivedAt: 3_000 }),
        sampleEvent({ traceId: "5", receivedAt: 4_000 }),
      ]);
      const last = (await stores.events.query({ limit: 1, order: "desc" }))[0]!.seq;
      expect(await stores.events.deleteReceivedBefore(3_000, { upToSeq: last, limit: 100 })).toBe(3);
      expect((await stores.events.query({ limit: 10 })).map((event) => event.traceId)).toEqual(["4", "5"]);
      expect(await stores.events.deleteReceivedBefore(3_000, { upToSeq: last, limit: 100 })).toBe(0);
      await stores.events.append([sampleEvent({ traceId: "after", receivedAt: 5_000 })]);
      const [, , after] = await stores.events.query({ limit: 10 });
      expect(after!.seq).toBeGreaterThan(last);
    });

    test("deleteReceivedBefore takes at most `limit`, none past `upToSeq`, and stops at the first event not old enough", async () => {
      await stores.events.append(
        [1, 2, 3, 4, 5].map((index) => sampleEvent({ traceId: String(index), receivedAt: index * 1_000 })),
      );
      // An event committed later but received earlier (a clock's small step back) waits for those before it.
      await stores.events.append([sampleEvent({ traceId: "late", receivedAt: 500 })]);
      const seqs = (await stores.events.query({ limit: 10 })).map((event) => event.seq);
      expect(await stores.events.deleteReceivedBefore(10_000, { upToSeq: seqs[5]!, limit: 2 })).toBe(2);
      expect(await stores.events.deleteReceivedBefore(10_000, { upToSeq: seqs[3]!, limit: 100 })).toBe(2);
      expect((await stores.events.query({ limit: 10 })).map((event) => event.traceId)).toEqual(["5", "late"]);
      expect(await stores.events.deleteReceivedBefore(4_500, { upToSeq: seqs[5]!, limit: 100 })).toBe(0);
      expect(await stores.events.deleteReceivedBefore(10_000, { upToSeq: 0, limit: 100 })).toBe(0);
      expect(await stores.events.deleteReceivedBefore(10_000, { upToSeq: seqs[5]!, limit: 100 })).toBe(2);
      expect(await stores.events.query({ limit: 10 })).toEqual([]);
    });

    test("deleteReceivedBefore goes through more events than one statement binds", async () => {
      await stores.events.append(
        Array.from({ length: 1_200 }, (_, index) => sampleEvent({ visitorId: `v${index}`, receivedAt: 1_000 + index })),
      );
      const last = (await stores.events.query({ limit: 1, order: "desc" }))[0]!.seq;
      expect(await stores.events.deleteReceivedBefore(2_100, { upToSeq: last, limit: 5_000 })).toBe(1_100);
      const left = await stores.events.query({ limit: 1_000 });
      expect(left.length).toBe(100);
      expect(left[0]!.receivedAt).toBe(2_100);
    });

    test("the tracking plan's verdict and violations are stored with an event; one appended without reads none (issue 43)", async () => {
      const violation = { parameter: "total", path: "/total", rule: "type", value: "3", message: "must be number" };
      const missing = {
        parameter: "order_id",
        path: "/order_id",
        rule: "required",
        message: "must have required property",
      };
      await stores.events.append([
        sampleEvent({ traceId: "good", verdict: "valid", violations: [] }),
        sampleEvent({ traceId: "bad", verdict: "invalid", violations: [violation, missing] }),
      ]);
      const { verdict: _verdict, violations: _violations, ...unjudged } = sampleEvent({ traceId: "plain" });
      await stores.events.append([unjudged]);
      const stored = await stores.events.query({ limit: 10 });
      expect(stored.map((event) => [event.traceId, event.verdict, event.violations])).toEqual([
        ["good", "valid", []],
        ["bad", "invalid", [violation, missing]],
        ["plain", "none", []],
      ]);
      for (const verdict of ["valid", "invalid", "none"] as const) {
        const found = await stores.events.query({ verdict, limit: 10 });
        expect(found.map((event) => event.verdict)).toEqual([verdict]);
      }
      expect(await stores.events.query({ verdict: "invalid", traceId: "good", limit: 10 })).toEqual([]);
    });

    test("countVerdicts counts each verdict by event name, with the query's filters, names in order and none last (issue 43)", async () => {
      const judged = (event: string | null, verdict: "valid" | "invalid" | "none", overrides = {}) =>
        sampleEvent({ event, verdict, violations: [], ...overrides });
      await stores.events.append([
        judged("view", "none"),
        judged("purchase", "valid"),
        judged("purchase", "invalid"),
        judged("purchase", "invalid"),
        judged(null, "invalid"),
        judged("add_to_cart", "valid", { receivedAt: 5 }),
        judged("purchase", "valid", { profile: "dev" }),
      ]);
      expect(await stores.events.countVerdicts({ account: "acme", profile: "main" })).toEqual([
        { event: "add_to_cart", valid: 1, invalid: 0, none: 0 },
        { event: "purchase", valid: 1, invalid: 2, none: 0 },
        { event: "view", valid: 0, invalid: 0, none: 1 },
        { event: null, valid: 0, invalid: 1, none: 0 },
      ]);
      expect(await stores.events.countVerdicts({ event: "purchase" })).toEqual([
        { event: "purchase", valid: 2, invalid: 2, none: 0 },
      ]);
      expect(await stores.events.countVerdicts({ profile: "main", to: 5 })).toEqual([
        { event: "add_to_cart", valid: 1, invalid: 0, none: 0 },
      ]);
      expect(await stores.events.countVerdicts({ account: "globex" })).toEqual([]);
    });

    test("a closed store refuses to append", async () => {
      await stores.close();
      await expect(stores.events.append([sampleEvent()])).rejects.toThrow();
    });
  });
}
