import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { KeyedTurns } from "./keyed-turns.ts";

describe("KeyedTurns", () => {
  it("runs the tasks of one key one after another, in order, and those of other keys beside them; a failure does not stop the next", async () => {
    const turns = new KeyedTurns();
    const log: string[] = [];
    const task =
      (name: string, ms: number, fail = false) =>
      async () => {
        log.push(`start ${name}`);
        await new Promise((resolve) => setTimeout(resolve, ms));
        log.push(`end ${name}`);
        if (fail) throw new Error(name);
        return name;
      };
    const results = await Promise.allSettled([
      turns.run("a", task("a1", 20, true)),
      turns.run("a", task("a2", 1)),
      turns.run("b", task("b1", 5)),
    ]);
    assert.deepEqual(
      results.map((result) => (result.status === "fulfilled" ? result.value : (result.reason as Error).message)),
      ["a1", "a2", "b1"],
    );
    assert.ok(log.indexOf("start a2") > log.indexOf("end a1"));
    assert.ok(log.indexOf("start b1") < log.indexOf("end a1"));
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.equal(turns.busyKeys, 0);
  });
});
