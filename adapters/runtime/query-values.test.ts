import { describe, expect, it } from "bun:test";
import { firstQueryValues, queryParamsOf } from "./query-values.ts";

describe("query strings", () => {
  it("are read percent-decoded with + as a space, up to a fragment; none without a ?", () => {
    expect([...queryParamsOf("http://h/p?a=1&b=x+y%21&a=2#top&c=3")]).toEqual([
      ["a", "1"],
      ["b", "x y!"],
      ["a", "2"],
    ]);
    expect([...queryParamsOf("http://h/p")]).toEqual([]);
    expect([...queryParamsOf("http://h/p?")]).toEqual([]);
  });

  it("a repeated parameter keeps its first value; an absent one is undefined", () => {
    const first = firstQueryValues(new Request("http://h/p?limit=1&limit=3&empty="));
    expect([first("limit"), first("empty"), first("missing")]).toEqual(["1", "", undefined]);
    expect(firstQueryValues(new Request("http://h/p"))("limit")).toBeUndefined();
  });
});
