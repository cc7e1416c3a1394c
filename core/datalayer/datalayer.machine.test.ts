import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { managementError } from "../errors/index.ts";
import type { DataLayerKey } from "../ports/datalayer.store.ts";
import {
  type ChangeLifecycle,
  type DataLayerCommand,
  type DataLayerSummary,
  dataLayerChangeLifecycle,
  publishRetryPolicy,
  transitionChange,
  transitionDataLayer,
  untouchedDataLayer,
} from "./datalayer.machine.ts";

const key: DataLayerKey = { account: "acme", profile: "main", dlId: "prod_1" };

function accept(state: DataLayerSummary, command: DataLayerCommand) {
  const decided = transitionDataLayer(key, state, command);
  assert.ok(decided.ok, JSON.stringify(decided));
  return decided.value;
}

describe("a data layer's changes (DLE-01..03, DLE-10, DLE-11, DEC-DLE-01, DEC-DLE-05, DEC-DLE-06)", () => {
  it("an upload of a new dl_id is accepted as pending change 1, due after its delay", () => {
    const { next, effects } = accept(untouchedDataLayer, {
      type: "upload",
      body: '{"a":1}',
      at: 10_000,
      delayMs: 1_000,
    });
    assert.deepEqual(next, { exists: true, lastSeq: 1, lastDueAt: 11_000 });
    assert.deepEqual(effects, [
      {
        type: "record-change",
        change: {
          key,
          seq: 1,
          kind: "upload",
          body: '{"a":1}',
          state: "pending",
          acceptedAt: 10_000,
          dueAt: 11_000,
          runAt: 11_000,
          attempts: 0,
          settledAt: null,
        },
      },
    ]);
  });

  it("an upload of a dl_id that exists is 405 1464, even while its change is pending", () => {
    const exists: DataLayerSummary = { exists: true, lastSeq: 1, lastDueAt: 11_000 };
    assert.deepEqual(transitionDataLayer(key, exists, { type: "upload", body: "{}", at: 10_500, delayMs: 0 }), {
      ok: false,
      error: managementError("resourceAlreadyExists"),
    });
  });

  it("an update or delete of a dl_id that does not exist is 404 1404 naming account/profile/dl_id", () => {
    const notFound = {
      ok: false,
      error: managementError("dataLayerNotFound", { account: "acme", profile: "main", dl_id: "prod_1" }),
    };
    assert.equal(notFound.error.message, "Could not locate data layer for supplied params (acme/main/prod_1).");
    const deleted: DataLayerSummary = { exists: false, lastSeq: 2, lastDueAt: 5_000 };
    for (const state of [untouchedDataLayer, deleted]) {
      assert.deepEqual(transitionDataLayer(key, state, { type: "update", body: "{}", at: 1, delayMs: 0 }), notFound);
      assert.deepEqual(transitionDataLayer(key, state, { type: "delete", at: 1, delayMs: 0 }), notFound);
    }
  });

  it("a delete makes the dl_id not exist at once, so it can be uploaded again", () => {
    const uploaded = accept(untouchedDataLayer, { type: "upload", body: "{}", at: 0, delayMs: 100 }).next;
    const deleted = accept(uploaded, { type: "delete", at: 10, delayMs: 100 });
    assert.deepEqual(deleted.next, { exists: false, lastSeq: 2, lastDueAt: 110 });
    assert.equal(deleted.effects[0]?.change.body, null);
    assert.equal(accept(deleted.next, { type: "upload", body: "{}", at: 20, delayMs: 100 }).next.lastSeq, 3);
  });

  it("a change is never due before the previous one, whatever its own delay", () => {
    const uploaded = accept(untouchedDataLayer, { type: "upload", body: "{}", at: 0, delayMs: 600_000 }).next;
    const updated = accept(uploaded, { type: "update", body: "{}", at: 1_000, delayMs: 5_000 });
    assert.equal(updated.effects[0]?.change.dueAt, 600_000);
  });

  const command = fc.oneof(
    fc.record({
      type: fc.constant("upload" as const),
      body: fc.constant("{}"),
      delayMs: fc.integer({ min: 0, max: 3_600_000 }),
      gap: fc.nat(10_000),
    }),
    fc.record({
      type: fc.constant("update" as const),
      body: fc.constant("{}"),
      delayMs: fc.integer({ min: 0, max: 3_600_000 }),
      gap: fc.nat(10_000),
    }),
    fc.record({
      type: fc.constant("delete" as const),
      delayMs: fc.integer({ min: 0, max: 3_600_000 }),
      gap: fc.nat(10_000),
    }),
  );

  it("accepts and refuses any sequence of calls as the existence model says, numbering and ordering what it accepts", () => {
    fc.assert(
      fc.property(fc.array(command, { maxLength: 40 }), (commands) => {
        let state = untouchedDataLayer;
        let exists = false;
        let at = 0;
        for (const { gap, ...call } of commands) {
          at += gap;
          const decided = transitionDataLayer(key, state, { ...call, at } as DataLayerCommand);
          const allowed: boolean = call.type === "upload" ? !exists : exists;
          assert.equal(decided.ok, allowed);
          if (!decided.ok) continue;
          const change = decided.value.effects[0]!.change;
          assert.equal(change.seq, state.lastSeq + 1);
          assert.ok(change.dueAt >= at + call.delayMs && change.dueAt >= (state.lastDueAt ?? 0));
          assert.equal(change.state, "pending");
          exists = call.type !== "delete";
          state = decided.value.next;
          assert.equal(state.exists, exists);
        }
      }),
    );
  });
});

describe("a change's lifecycle: pending -> completed | failed (DLE-07, DEC-DLE-06)", () => {
  const pending: ChangeLifecycle = { state: "pending", runAt: 11_000, attempts: 0 };

  it("publishing an upload or update completes it at its scheduled time and serves its content", () => {
    for (const kind of ["upload", "update"] as const) {
      assert.deepEqual(transitionChange({ kind, body: '{"a":1}', lifecycle: pending }, { type: "publish" }), {
        ok: true,
        value: {
          next: { state: "completed", settledAt: 11_000, attempts: 0 },
          effects: [{ type: "serve", body: '{"a":1}' }],
        },
      });
    }
  });

  it("publishing a delete completes it and stops serving", () => {
    assert.deepEqual(transitionChange({ kind: "delete", body: null, lifecycle: pending }, { type: "publish" }), {
      ok: true,
      value: { next: { state: "completed", settledAt: 11_000, attempts: 0 }, effects: [{ type: "stop-serving" }] },
    });
  });

  it("a failed publish is retried with a doubling delay and fails after the last attempt", () => {
    let lifecycle: ChangeLifecycle = pending;
    const retries: number[] = [];
    for (let attempt = 1; attempt < publishRetryPolicy.maxAttempts; attempt += 1) {
      const decided = transitionChange(
        { kind: "upload", body: "{}", lifecycle },
        { type: "publish-failed", at: 100_000 },
      );
      assert.ok(decided.ok && decided.value.next.state === "pending");
      const next = decided.value.next;
      assert.ok(next.state === "pending");
      retries.push(next.runAt - 100_000);
      assert.deepEqual(decided.value.effects, [{ type: "retry-at", at: next.runAt }]);
      lifecycle = next;
    }
    assert.deepEqual(retries, [1_000, 2_000, 4_000, 8_000]);
    assert.deepEqual(
      transitionChange({ kind: "upload", body: "{}", lifecycle }, { type: "publish-failed", at: 200_000 }),
      {
        ok: true,
        value: { next: { state: "failed", settledAt: 200_000, attempts: 5 }, effects: [] },
      },
    );
  });

  it("completed and failed are final: every event is refused", () => {
    for (const lifecycle of [
      { state: "completed", settledAt: 1, attempts: 0 },
      { state: "failed", settledAt: 1, attempts: 5 },
    ] as const) {
      assert.deepEqual(transitionChange({ kind: "upload", body: "{}", lifecycle }, { type: "publish" }), {
        ok: false,
        error: "not-pending",
      });
      assert.deepEqual(transitionChange({ kind: "upload", body: "{}", lifecycle }, { type: "publish-failed", at: 2 }), {
        ok: false,
        error: "not-pending",
      });
    }
  });

  it("any run of events settles a change at most once, within the attempt budget, and never moves time back", () => {
    const event = fc.oneof(
      fc.constant({ type: "publish" as const }),
      fc.record({ type: fc.constant("publish-failed" as const), at: fc.integer({ min: 11_000, max: 1e9 }) }),
    );
    fc.assert(
      fc.property(fc.array(event, { maxLength: 12 }), (events) => {
        let lifecycle: ChangeLifecycle = pending;
        let settled = 0;
        for (const each of events) {
          const decided = transitionChange({ kind: "update", body: "{}", lifecycle }, each);
          if (!decided.ok) {
            assert.notEqual(lifecycle.state, "pending");
            continue;
          }
          const next = decided.value.next;
          assert.ok(next.attempts <= publishRetryPolicy.maxAttempts);
          if (next.state !== "pending") settled += 1;
          if (next.state === "pending" && each.type === "publish-failed") assert.ok(next.runAt > each.at);
          lifecycle = next;
        }
        assert.ok(settled <= 1);
      }),
    );
  });

  it("reads the lifecycle of a stored change", () => {
    const change = {
      key,
      seq: 1,
      kind: "upload" as const,
      body: "{}",
      acceptedAt: 1,
      dueAt: 2,
      runAt: 3,
      attempts: 1,
      settledAt: null,
    };
    assert.deepEqual(dataLayerChangeLifecycle({ ...change, state: "pending" }), {
      state: "pending",
      runAt: 3,
      attempts: 1,
    });
    assert.deepEqual(dataLayerChangeLifecycle({ ...change, state: "completed", settledAt: 9 }), {
      state: "completed",
      settledAt: 9,
      attempts: 1,
    });
  });
});
