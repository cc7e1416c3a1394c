import { describe, expect, it } from "bun:test";
import { KeyedTurns } from "./keyed-turns.ts";

describe("KeyedTurns", () => {
  it("runs the tasks of one key one after another, in order, and those of other keys beside them; a failure does not stop the next", async () => {
    const turns = new KeyedTurns();
    const log: string[] = [];
    const task =
      (name: string, ms: number, fail = false) =>
      async () => {
        log.push(`start ${name}`);
        await Bun.sleep(ms);
        log.push(`end ${name}`);
        if (fail) throw new Error(name);
        return name;
      };
    const results = await Promise.allSettled([
      turns.run("a", task("a1", 20, true)),
      turns.run("a", task("a2", 1)),
      turns.run("b", task("b1", 5)),
    ]);
    expect(
      results.map((result) => (result.status === "fulfilled" ? result.value : (result.reason as Error).message)),
    ).toEqual(["a1", "a2", "b1"]);
    expect(log.indexOf("start a2")).toBeGreaterThan(log.indexOf("end a1"));
    expect(log.indexOf("start b1")).toBeLessThan(log.indexOf("end a1"));
    await Bun.sleep(0);
    expect(turns.busyKeys).toBe(0);
  });
});
