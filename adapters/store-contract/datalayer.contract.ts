/** The hosted data layer part of the store contract, run against every store implementation. */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { type DataLayerChange, type DataLayerKey, type Stores, servedHeadCharacters } from "../../core/ports/index.ts";

const key: DataLayerKey = { account: "acme", profile: "main", dlId: "prod_1" };

/** A change as `list` answers it: without its body. */
function withoutBody({ body: _body, ...rest }: DataLayerChange): Omit<DataLayerChange, "body"> {
  return rest;
}

function change(overrides: Partial<DataLayerChange> = {}): DataLayerChange {
  const seq = overrides.seq ?? 1;
  return {
    key,
    seq,
    kind: seq === 1 ? "upload" : "update",
    body: `{"n":${seq}}`,
    state: "pending",
    acceptedAt: 1_000 * seq,
    dueAt: 1_000 * seq + 500,
    runAt: 1_000 * seq + 500,
    attempts: 0,
    settledAt: null,
    ...overrides,
  };
}

export function describeDataLayerStoreContract(name: string, open: () => Promise<Stores>): void {
  describe(`${name}: hosted data layers`, () => {
    let stores: Stores;
    beforeEach(async () => {
      stores = await open();
    });
    afterEach(async () => {
      await stores.close();
    });

    test("an unknown data layer reads null, serves nothing and is not listed", async () => {
      expect(await stores.dataLayers.read(key)).toBeNull();
      expect(await stores.dataLayers.served(key)).toBeNull();
      expect(await stores.dataLayers.listExisting("acme", "main", 10)).toEqual([]);
      expect(await stores.dataLayers.due(Number.MAX_SAFE_INTEGER, 10)).toEqual([]);
      expect(await stores.dataLayers.nextRunAt()).toBeNull();
    });

    test("an appended change reads back deep-equal as the newest, with the layer's summary", async () => {
      expect(await stores.dataLayers.append(change(), true)).toBe(true);
      expect(await stores.dataLayers.read(key)).toEqual({
        layer: { key, exists: true, lastSeq: 1, lastDueAt: 1_500, settledSeq: 0, served: null },
        newest: change(),
      });
    });

    test('a body\'s JSON keeps its \\u0000 and lone surrogate escapes as uploaded (decisions of our own, "Text that a store cannot keep")', async () => {
      const body = '{"a\\u0000":"b\\u0000c","lone":"\\ud800","both":["\\udc00\\u0000"]}';
      expect(await stores.dataLayers.append(change({ body }), true)).toBe(true);
      expect((await stores.dataLayers.read(key))?.newest?.body).toBe(body);
    });

    test("a change is recorded only as the next seq: a stale or repeated seq changes nothing", async () => {
      expect(await stores.dataLayers.append(change({ seq: 2 }), true)).toBe(false);
      expect(await stores.dataLayers.read(key)).toBeNull();
      expect(await stores.dataLayers.append(change(), true)).toBe(true);
      expect(await stores.dataLayers.append(change({ body: '{"other":true}' }), true)).toBe(false);
      expect(await stores.dataLayers.append(change({ seq: 2, kind: "delete", body: null }), false)).toBe(true);
      expect(await stores.dataLayers.append(change({ seq: 2 }), true)).toBe(false);
      const read = await stores.dataLayers.read(key);
      expect(read?.layer.lastSeq).toBe(2);
      expect(read?.layer.exists).toBe(false);
      expect(read?.newest.kind).toBe("delete");
    });

    test("of two writers deciding the same next seq at once, exactly one is recorded", async () => {
      await stores.dataLayers.append(change(), true);
      const results = await Promise.all([
        stores.dataLayers.append(change({ seq: 2, body: '{"writer":"a"}' }), true),
        stores.dataLayers.append(change({ seq: 2, body: '{"writer":"b"}' }), true),
      ]);
      expect(results.filter(Boolean)).toHaveLength(1);
      const read = await stores.dataLayers.read(key);
      expect(read?.newest.body).toBe(results[0] ? '{"writer":"a"}' : '{"writer":"b"}');
    });

    test("list names the existing data layers of one profile in code-unit order, up to the limit", async () => {
      const names = ["b", "B", "a_1", "a-1", "~z", "Z9", "0"];
      for (const dlId of names) await stores.dataLayers.append(change({ key: { ...key, dlId } }), true);
      await stores.dataLayers.append(change({ key: { ...key, profile: "dev", dlId: "elsewhere" } }), true);
      await stores.dataLayers.append(change({ key: { ...key, dlId: "gone" } }), true);
      await stores.dataLayers.append(
        change({ key: { ...key, dlId: "gone" }, seq: 2, kind: "delete", body: null }),
        false,
      );
      const sorted = [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      expect(await stores.dataLayers.listExisting("acme", "main", 100)).toEqual(sorted);
      expect(await stores.dataLayers.listExisting("acme", "main", 3)).toEqual(sorted.slice(0, 3));
      expect(await stores.dataLayers.listExisting("acme", "dev", 100)).toEqual(["elsewhere"]);
    });

    test("list answers every data layer of the profile with a change, deleted ones too, by dl_id in code-unit order, up to the limit", async () => {
      const names = ["b", "B", "a_1", "a-1", "~z", "Z9", "0"];
      for (const dlId of names) await stores.dataLayers.append(change({ key: { ...key, dlId } }), true);
      await stores.dataLayers.append(change({ key: { ...key, profile: "dev", dlId: "elsewhere" } }), true);
      await stores.dataLayers.append(change({ key: { ...key, account: "globex", dlId: "elsewhere" } }), true);
      const gone = { ...key, dlId: "gone" };
      await stores.dataLayers.append(change({ key: gone }), true);
      await stores.dataLayers.append(change({ key: gone, seq: 2, kind: "delete", body: null }), false);
      const sorted = [...names, "gone"].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      const listed = await stores.dataLayers.list("acme", "main", 100);
      expect(listed.map((each) => each.layer.key.dlId)).toEqual(sorted);
      expect((await stores.dataLayers.list("acme", "main", 3)).map((each) => each.layer.key.dlId)).toEqual(
        sorted.slice(0, 3),
      );
      expect((await stores.dataLayers.list("acme", "dev", 100)).map((each) => each.layer.key.dlId)).toEqual([
        "elsewhere",
      ]);
      expect(await stores.dataLayers.list("acme", "nobody", 100)).toEqual([]);
      expect(listed.find((each) => each.layer.key.dlId === "gone")).toEqual({
        layer: { key: gone, exists: false, lastSeq: 2, lastDueAt: 2_500, settledSeq: 0 },
        newest: withoutBody(change({ key: gone, seq: 2, kind: "delete", body: null })),
        served: null,
      });
    });

    test("list answers the newest change as it is now and what is served, without bodies", async () => {
      await stores.dataLayers.append(change(), true);
      await stores.dataLayers.settle({
        key,
        seq: 1,
        state: "completed",
        settledAt: 1_600,
        attempts: 1,
        serve: '{"n":1}',
      });
      await stores.dataLayers.append(change({ seq: 2 }), true);
      await stores.dataLayers.retry(key, 2, 1, 9_000);
      expect(await stores.dataLayers.list("acme", "main", 10)).toEqual([
        {
          layer: { key, exists: true, lastSeq: 2, lastDueAt: 2_500, settledSeq: 1 },
          newest: withoutBody(change({ seq: 2, attempts: 1, runAt: 9_000 })),
          served: { seq: 1, publishedAt: 1_600, bytes: 7, head: '{"n":1}' },
        },
      ]);
    });

    test("list answers the size of what is served in UTF-8 bytes and only its first servedHeadCharacters characters", async () => {
      // 4-byte and 2-byte characters around the cut, so that characters (not UTF-16 units or bytes) are counted.
      const filler = "😀é".repeat(servedHeadCharacters);
      const body = `{"t":"${filler}"}`;
      await stores.dataLayers.append(change({ body }), true);
      await stores.dataLayers.settle({ key, seq: 1, state: "completed", settledAt: 1_500, attempts: 0, serve: body });
      const [listed] = await stores.dataLayers.list("acme", "main", 10);
      expect(listed?.served?.bytes).toBe(new TextEncoder().encode(body).byteLength);
      expect(listed?.served?.head).toBe(Array.from(body).slice(0, servedHeadCharacters).join(""));
    });

    test("due answers only the oldest pending change of each layer, once its runAt has come", async () => {
      const other: DataLayerKey = { ...key, dlId: "other" };
      await stores.dataLayers.append(change(), true);
      await stores.dataLayers.append(change({ seq: 2, runAt: 1_000, dueAt: 2_500 }), true);
      await stores.dataLayers.append(change({ key: other, runAt: 1_200 }), true);
      expect((await stores.dataLayers.due(1_400, 10)).map((due) => [due.key.dlId, due.seq])).toEqual([["other", 1]]);
      expect((await stores.dataLayers.due(5_000, 10)).map((due) => [due.key.dlId, due.seq])).toEqual([
        ["other", 1],
        ["prod_1", 1],
      ]);
      expect(await stores.dataLayers.due(5_000, 1)).toHaveLength(1);
      expect(await stores.dataLayers.nextRunAt()).toBe(1_200);
    });

    test("settling a completed upload serves it, drops older changes and lets the next one run", async () => {
      await stores.dataLayers.append(change(), true);
      await stores.dataLayers.append(change({ seq: 2 }), true);
      expect(
        await stores.dataLayers.settle({
          key,
          seq: 1,
          state: "completed",
          settledAt: 1_500,
          attempts: 0,
          serve: '{"n":1}',
        }),
      ).toBe(true);
      expect(await stores.dataLayers.served(key)).toEqual({ body: '{"n":1}', seq: 1, publishedAt: 1_500 });
      expect((await stores.dataLayers.due(10_000, 10)).map((due) => due.seq)).toEqual([2]);
      expect(await stores.dataLayers.nextRunAt()).toBe(2_500);

      expect(
        await stores.dataLayers.settle({
          key,
          seq: 2,
          state: "completed",
          settledAt: 2_500,
          attempts: 0,
          serve: '{"n":2}',
        }),
      ).toBe(true);
      const read = await stores.dataLayers.read(key);
      expect(read?.newest).toEqual({ ...change({ seq: 2 }), state: "completed", settledAt: 2_500 });
      expect(read?.layer.settledSeq).toBe(2);
      expect(read?.layer.served).toEqual({ body: '{"n":2}', seq: 2, publishedAt: 2_500 });
      expect(await stores.dataLayers.nextRunAt()).toBeNull();
    });

    test("a completed delete stops serving; the layer stays with its status", async () => {
      await stores.dataLayers.append(change(), true);
      await stores.dataLayers.settle({
        key,
        seq: 1,
        state: "completed",
        settledAt: 1_500,
        attempts: 0,
        serve: '{"n":1}',
      });
      await stores.dataLayers.append(change({ seq: 2, kind: "delete", body: null }), false);
      expect(await stores.dataLayers.served(key)).toEqual({ body: '{"n":1}', seq: 1, publishedAt: 1_500 });
      await stores.dataLayers.settle({ key, seq: 2, state: "completed", settledAt: 2_500, attempts: 0, serve: null });
      expect(await stores.dataLayers.served(key)).toBeNull();
      expect((await stores.dataLayers.read(key))?.newest.state).toBe("completed");
    });

    test("settling twice, or a change that is not pending, changes nothing", async () => {
      await stores.dataLayers.append(change(), true);
      expect(
        await stores.dataLayers.settle({
          key,
          seq: 1,
          state: "completed",
          settledAt: 1_500,
          attempts: 0,
          serve: '{"n":1}',
        }),
      ).toBe(true);
      expect(
        await stores.dataLayers.settle({
          key,
          seq: 1,
          state: "completed",
          settledAt: 9_999,
          attempts: 0,
          serve: '{"x":0}',
        }),
      ).toBe(false);
      expect(await stores.dataLayers.settle({ key, seq: 1, state: "failed", settledAt: 9_999, attempts: 5 })).toBe(
        false,
      );
      expect(await stores.dataLayers.served(key)).toEqual({ body: '{"n":1}', seq: 1, publishedAt: 1_500 });
      expect(
        await stores.dataLayers.settle({
          key: { ...key, dlId: "nope" },
          seq: 1,
          state: "failed",
          settledAt: 1,
          attempts: 1,
        }),
      ).toBe(false);
    });

    test("a failed change keeps what is served; a retry moves the next try and counts it", async () => {
      await stores.dataLayers.append(change(), true);
      await stores.dataLayers.settle({
        key,
        seq: 1,
        state: "completed",
        settledAt: 1_500,
        attempts: 0,
        serve: '{"n":1}',
      });
      await stores.dataLayers.append(change({ seq: 2 }), true);
      await stores.dataLayers.retry(key, 2, 1, 9_000);
      expect(await stores.dataLayers.due(8_999, 10)).toEqual([]);
      expect(await stores.dataLayers.due(9_000, 10)).toEqual([{ ...change({ seq: 2 }), attempts: 1, runAt: 9_000 }]);
      expect(await stores.dataLayers.settle({ key, seq: 2, state: "failed", settledAt: 9_000, attempts: 2 })).toBe(
        true,
      );
      const read = await stores.dataLayers.read(key);
      expect(read?.newest.state).toBe("failed");
      expect(read?.newest.attempts).toBe(2);
      expect(read?.layer.served).toEqual({ body: '{"n":1}', seq: 1, publishedAt: 1_500 });
      expect(await stores.dataLayers.nextRunAt()).toBeNull();
    });

    test("bodies keep every character: __proto__ keys, unicode, big numbers", async () => {
      const body =
        '{"__proto__":{"polluted":true},"constructor":1,"text":"é ✓ 😀 \\u2028","big":123456789012345678901234567890}';
      await stores.dataLayers.append(change({ body }), true);
      expect((await stores.dataLayers.read(key))?.newest.body).toBe(body);
      await stores.dataLayers.settle({ key, seq: 1, state: "completed", settledAt: 1_500, attempts: 0, serve: body });
      expect((await stores.dataLayers.served(key))?.body).toBe(body);
    });

    test("changes appended at once each answer for themselves (calls that arrive together may share a commit)", async () => {
      const other: DataLayerKey = { ...key, dlId: "prod_2" };
      const recorded = await Promise.all([
        stores.dataLayers.append(change(), true),
        stores.dataLayers.append(change({ body: '{"second":true}' }), true),
        stores.dataLayers.append(change({ key: other }), true),
      ]);
      expect(recorded).toEqual([true, false, true]);
      expect((await stores.dataLayers.read(key))?.newest.body).toBe('{"n":1}');
      expect((await stores.dataLayers.read(other))?.newest.seq).toBe(1);
    });

    test("settlements made at once each answer for themselves (the publisher settles a pass's changes together)", async () => {
      const other: DataLayerKey = { ...key, dlId: "prod_2" };
      await stores.dataLayers.append(change(), true);
      await stores.dataLayers.append(change({ key: other, body: '{"other":1}' }), true);
      const settled = await Promise.all([
        stores.dataLayers.settle({ key, seq: 1, state: "completed", settledAt: 1_500, attempts: 0, serve: '{"n":1}' }),
        stores.dataLayers.settle({ key: { ...key, dlId: "nope" }, seq: 1, state: "failed", settledAt: 1, attempts: 1 }),
        stores.dataLayers.settle({
          key: other,
          seq: 1,
          state: "completed",
          settledAt: 1_600,
          attempts: 0,
          serve: '{"other":1}',
        }),
        stores.dataLayers.settle({ key, seq: 1, state: "completed", settledAt: 9_999, attempts: 0, serve: '{"x":0}' }),
      ]);
      expect(settled).toEqual([true, false, true, false]);
      expect(await stores.dataLayers.served(key)).toEqual({ body: '{"n":1}', seq: 1, publishedAt: 1_500 });
      expect(await stores.dataLayers.served(other)).toEqual({ body: '{"other":1}', seq: 1, publishedAt: 1_600 });
    });

    test("layers are kept apart by account, profile and dl_id", async () => {
      const keys: DataLayerKey[] = [
        key,
        { ...key, account: "globex" },
        { ...key, profile: "dev" },
        { ...key, dlId: "PROD_1" },
      ];
      for (const [index, each] of keys.entries())
        await stores.dataLayers.append(change({ key: each, body: `{"i":${index}}` }), true);
      for (const [index, each] of keys.entries())
        expect((await stores.dataLayers.read(each))?.newest.body).toBe(`{"i":${index}}`);
    });
  });
}
