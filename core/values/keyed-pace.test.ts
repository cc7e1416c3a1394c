import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { KeyedPace } from "./keyed-pace.ts";

describe("KeyedPace", () => {
  it("starts one task of a key per spacing, in order; another key is not held back", async () => {
    // The clock stands still; each task asks to sleep until its turn: 0, then one spacing more each.
    const sleeps: Array<[string, number]> = [];
    let key = "";
    const pace = new KeyedPace(
      1000,
      4,
      () => 5_000,
      async (ms) => void sleeps.push([key, ms]),
    );
    const take = (name: string) => {
      key = name;
      return pace.take(name);
    };
    assert.deepEqual(await Promise.all([take("a"), take("a"), take("b"), take("a")]), [true, true, true, true]);
    assert.deepEqual(sleeps, [
      ["a", 1000],
      ["a", 2000],
    ]);
  });

  it("refuses at once a task past the waiting limit of its key", async () => {
    const pace = new KeyedPace(
      1000,
      2,
      () => 0,
      () => new Promise(() => {}),
    );
    assert.equal(await pace.take("a"), true);
    void pace.take("a");
    void pace.take("a");
    assert.equal(await pace.take("a"), false);
    assert.equal(await pace.take("b"), true);
  });

  it("forgets keys whose spacing has passed, so memory follows the keys of the last moment", async () => {
    let now = 0;
    const pace = new KeyedPace(
      1000,
      4,
      () => now,
      async () => {},
    );
    for (let i = 0; i < 5000; i += 1) {
      await pace.take(`k${i}`);
      now += 10;
    }
    assert.ok(pace.keptKeys <= 1024 + 100);
  });
});
