/** The visitor privacy part of the store contract (PRV-05..07, PRV-10, DEC-PRV-03/04), run against every store implementation. */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { PrivacyTransaction, Stores } from "../../core/ports/index.ts";
import { auditFor, sampleTransaction } from "../../testing/fixtures.ts";

function request(stores: Stores, transaction: PrivacyTransaction) {
  return stores.privacy.requestDeletion(transaction, auditFor(transaction, "deletion-requested"));
}

export function describePrivacyStoreContract(name: string, open: () => Promise<Stores>): void {
  describe(`${name}: visitor privacy transactions`, () => {
    let stores: Stores;
    beforeEach(async () => {
      stores = await open();
    });
    afterEach(async () => {
      await stores.close();
    });

    test("a read is kept as it was recorded, with its audit record, and found only in its account and profile", async () => {
      const read = sampleTransaction({ kind: "get", value: null, state: "SUCCESS", runAt: null, settledAt: 1_000 });
      await stores.privacy.recordRead(read, auditFor(read, "visitor-read"));
      expect(await stores.privacy.find("acme", "main", "t1")).toEqual(read);
      expect(await stores.privacy.find("acme", "dev", "t1")).toBeNull();
      expect(await stores.privacy.find("globex", "main", "t1")).toBeNull();
      expect(await stores.privacy.find("acme", "main", "t2")).toBeNull();
      expect(await stores.privacy.auditOf("t1")).toEqual([auditFor(read, "visitor-read")]);
      expect(await stores.privacy.nextDeletionAt()).toBeNull();
    });

    test("[PRV-05] a deletion request is recorded pending, with its audit record", async () => {
      expect(await request(stores, sampleTransaction())).toEqual({ transaction: sampleTransaction(), created: true });
      expect(await stores.privacy.find("acme", "main", "t1")).toEqual(sampleTransaction());
      expect(await stores.privacy.auditOf("t1")).toEqual([auditFor(sampleTransaction(), "deletion-requested")]);
    });

    test("[PRV-06] a second request for the same account, profile, attribute and value answers the pending one and records nothing", async () => {
      await request(stores, sampleTransaction());
      expect(await request(stores, sampleTransaction({ id: "t2", createdAt: 2_000, runAt: 4_000 }))).toEqual({
        transaction: sampleTransaction(),
        created: false,
      });
      expect(await stores.privacy.find("acme", "main", "t2")).toBeNull();
      expect(await stores.privacy.auditOf("t2")).toEqual([]);
    });

    test("[PRV-06] requests that differ in account, profile, attribute or value are separate transactions", async () => {
      await request(stores, sampleTransaction());
      const others = [
        sampleTransaction({ id: "t2", profile: "dev" }),
        sampleTransaction({ id: "t3", account: "globex" }),
        sampleTransaction({ id: "t4", attributeId: 5121 }),
        sampleTransaction({ id: "t5", valueHash: "hash-of-bob" }),
      ];
      for (const other of others) expect((await request(stores, other)).created).toBe(true);
    });

    test("[PRV-06] concurrent identical requests all answer one transaction, recorded once", async () => {
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, index) => request(stores, sampleTransaction({ id: `t${index}` }))),
      );
      const ids = new Set(answers.map((answer) => answer.transaction.id));
      expect(ids.size).toBe(1);
      expect(answers.filter((answer) => answer.created).length).toBe(1);
      const [id] = [...ids];
      expect((await stores.privacy.auditOf(id!)).length).toBe(1);
    });

    test("[PRV-10] pending deletions are due at runAt, earliest first; nextDeletionAt names the earliest", async () => {
      await request(stores, sampleTransaction({ id: "late", valueHash: "a", runAt: 9_000 }));
      await request(stores, sampleTransaction({ id: "early", valueHash: "b", runAt: 5_000 }));
      expect(await stores.privacy.nextDeletionAt()).toBe(5_000);
      expect(await stores.privacy.dueDeletions(4_999, 10)).toEqual([]);
      expect((await stores.privacy.dueDeletions(5_000, 10)).map((due) => due.id)).toEqual(["early"]);
      expect((await stores.privacy.dueDeletions(10_000, 10)).map((due) => due.id)).toEqual(["early", "late"]);
      expect((await stores.privacy.dueDeletions(10_000, 1)).map((due) => due.id)).toEqual(["early"]);
    });

    test("[DEC-PRV-04] a failed try moves the next one later and counts it", async () => {
      await request(stores, sampleTransaction());
      await stores.privacy.retryDeletion("t1", 1, 8_000);
      expect(await stores.privacy.find("acme", "main", "t1")).toEqual(sampleTransaction({ attempts: 1, runAt: 8_000 }));
      expect(await stores.privacy.dueDeletions(7_999, 10)).toEqual([]);
      expect(await stores.privacy.nextDeletionAt()).toBe(8_000);
    });

    test("[PRV-10, DEC-PRV-04] settling forgets the value, appends the audit, and ends pending; only once", async () => {
      await request(stores, sampleTransaction());
      const audit = auditFor(sampleTransaction(), "deletion-succeeded", 3_500, { events: 4, visitorIds: 2 });
      expect(
        await stores.privacy.settleDeletion({ id: "t1", state: "SUCCESS", settledAt: 3_500, attempts: 0, audit }),
      ).toBe(true);
      expect(await stores.privacy.find("acme", "main", "t1")).toEqual(
        sampleTransaction({ state: "SUCCESS", settledAt: 3_500, runAt: null, value: null }),
      );
      expect(
        await stores.privacy.settleDeletion({
          id: "t1",
          state: "FAILED",
          settledAt: 4_000,
          attempts: 5,
          audit: { ...audit, action: "deletion-failed" },
        }),
      ).toBe(false);
      expect((await stores.privacy.auditOf("t1")).map((record) => record.action)).toEqual([
        "deletion-requested",
        "deletion-succeeded",
      ]);
      expect((await stores.privacy.auditOf("t1"))[1]).toEqual(audit);
      expect(await stores.privacy.dueDeletions(10_000, 10)).toEqual([]);
      expect(await stores.privacy.nextDeletionAt()).toBeNull();
    });

    test("[PRV-06] once settled, the same request makes a new transaction", async () => {
      await request(stores, sampleTransaction());
      await stores.privacy.settleDeletion({
        id: "t1",
        state: "SUCCESS",
        settledAt: 3_500,
        attempts: 0,
        audit: auditFor(sampleTransaction(), "deletion-succeeded"),
      });
      expect(await request(stores, sampleTransaction({ id: "t2" }))).toEqual({
        transaction: sampleTransaction({ id: "t2" }),
        created: true,
      });
    });

    test("concurrent settlements of one deletion settle it once, with one audit record", async () => {
      await request(stores, sampleTransaction());
      const results = await Promise.all(
        Array.from({ length: 10 }, () =>
          stores.privacy.settleDeletion({
            id: "t1",
            state: "SUCCESS",
            settledAt: 3_500,
            attempts: 0,
            audit: auditFor(sampleTransaction(), "deletion-succeeded"),
          }),
        ),
      );
      expect(results.filter(Boolean).length).toBe(1);
      expect((await stores.privacy.auditOf("t1")).length).toBe(2);
    });

    test("list answers the profile's transactions newest first, up to the limit, with the detail of the audit record that settled a deletion", async () => {
      const read = sampleTransaction({
        id: "read",
        kind: "get",
        value: null,
        state: "SUCCESS",
        runAt: null,
        settledAt: 2_000,
        createdAt: 2_000,
      });
      await stores.privacy.recordRead(read, auditFor(read, "visitor-read"));
      const pending = sampleTransaction({ id: "pending", valueHash: "a", createdAt: 4_000 });
      const succeeded = sampleTransaction({ id: "succeeded", valueHash: "b", createdAt: 3_000 });
      const failed = sampleTransaction({ id: "failed", valueHash: "c", createdAt: 3_000 });
      for (const each of [pending, succeeded, failed]) await request(stores, each);
      await request(stores, sampleTransaction({ id: "elsewhere", profile: "dev", createdAt: 9_000 }));
      const removed = { visitorIds: 1, events: 4, profiles: 1, eventsRewritten: 0, profilesRewritten: 2 };
      await stores.privacy.settleDeletion({
        id: "succeeded",
        state: "SUCCESS",
        settledAt: 5_000,
        attempts: 0,
        audit: auditFor(succeeded, "deletion-succeeded", 5_000, removed),
      });
      await stores.privacy.settleDeletion({
        id: "failed",
        state: "FAILED",
        settledAt: 6_000,
        attempts: 5,
        audit: auditFor(failed, "deletion-failed", 6_000, { attempts: 5 }),
      });
      const settledOf = (
        transaction: PrivacyTransaction,
        state: "SUCCESS" | "FAILED",
        settledAt: number,
        attempts: number,
      ) => ({
        ...transaction,
        state,
        settledAt,
        attempts,
        runAt: null,
        value: null,
      });
      expect(await stores.privacy.list("acme", "main", 10)).toEqual([
        { transaction: pending, settlement: null },
        { transaction: settledOf(succeeded, "SUCCESS", 5_000, 0), settlement: removed },
        { transaction: settledOf(failed, "FAILED", 6_000, 5), settlement: { attempts: 5 } },
        { transaction: read, settlement: null },
      ]);
      expect((await stores.privacy.list("acme", "main", 2)).map((each) => each.transaction.id)).toEqual([
        "pending",
        "succeeded",
      ]);
      expect(await stores.privacy.list("globex", "main", 10)).toEqual([]);
    });

    test("changing a returned transaction does not change the stored one; flushErasures answers", async () => {
      await request(stores, sampleTransaction());
      const found = (await stores.privacy.find("acme", "main", "t1")) as { value: string | null };
      found.value = "changed";
      expect((await stores.privacy.find("acme", "main", "t1"))?.value).toBe("ann@example.com");
      expect(await stores.privacy.flushErasures()).toBe(true);
    });
  });
}
