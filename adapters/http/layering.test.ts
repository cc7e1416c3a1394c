/**
 * The HTTP adapter is thin: a route calls a use case and maps its result, never a store. The app's
 * dependencies hold no stores (AppDeps); this keeps the files of adapters/http from importing one either.
 * The process's entry (adapters/server/main.ts) chooses the store and hands it to the composition root beside it.
 */
import { describe, expect, it } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const folder = import.meta.dir;
const sources = readdirSync(folder).filter((name) => name.endsWith(".ts") && !name.endsWith(".test.ts"));

describe("the HTTP adapter's layering", () => {
  it("no route, guard or mapping imports a store or reads one from the app's dependencies", () => {
    const offending = sources.flatMap((name) => {
      const text = readFileSync(join(folder, name), "utf8");
      const imports = [...text.matchAll(/from\s+"([^"]+)"/g)].map((match) => match[1] as string);
      return [
        ...imports.filter((path) => /(^|\/)store-[a-z]+\//.test(path)).map((path) => `${name} imports ${path}`),
        ...(text.includes("deps.stores") ? [`${name} reads deps.stores`] : []),
      ];
    });
    expect(offending).toEqual([]);
    expect(sources.length).toBeGreaterThan(10);
  });
});
