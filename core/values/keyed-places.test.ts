import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { KeyedPlaces } from "./keyed-places.ts";

describe("KeyedPlaces", () => {
  it("gives a key at most its places; the others of the key wait, first come first served, and other keys are not held", async () => {
    const places = new KeyedPlaces(2, 3);
    assert.deepEqual([places.tryTake("a"), places.tryTake("a"), places.tryTake("a")], [true, true, false]);
    assert.equal(places.tryTake("b"), true);
    const order: string[] = [];
    const first = places.waitFor("a")?.then(() => order.push("first"));
    const second = places.waitFor("a")?.then(() => order.push("second"));
    await Promise.resolve();
    assert.deepEqual(order, []);
    places.give("a");
    await first;
    assert.deepEqual(order, ["first"]);
    // The place handed over is still held: "a" has none free.
    assert.equal(places.tryTake("a"), false);
    places.give("a");
    await second;
    assert.deepEqual(order, ["first", "second"]);
  });

  it("refuses a waiter past maxWaiting at once, and forgets a key once its last place is given back", () => {
    const places = new KeyedPlaces(1, 2);
    assert.equal(places.tryTake("a"), true);
    assert.notEqual(places.waitFor("a"), null);
    assert.notEqual(places.waitFor("a"), null);
    assert.equal(places.waitFor("a"), null);
    places.give("a");
    places.give("a");
    places.give("a");
    assert.equal(places.busyKeys, 0);
    assert.equal(places.tryTake("a"), true);
  });

  it("refuses to queue a waiter while its key has a free place", () => {
    const places = new KeyedPlaces(2, 2);
    assert.throws(() => places.waitFor("a"));
    places.tryTake("a");
    assert.throws(() => places.waitFor("a"));
  });
});
