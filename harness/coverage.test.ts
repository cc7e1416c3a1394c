/**
 * Coverage of the interface by the conformance scenarios: every scenario names only known clause and
 * decision IDs, titles are unique, and every clause ID of clauses.md is named by a scenario, except those
 * listed, each with the work that will cover it, in conformance/coverage-pending.json. A pending entry
 * that has become covered fails too, so the list only shrinks.
 */
import { describe, expect, it } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { allScenarios } from "../conformance/index.ts";
import pending from "../conformance/coverage-pending.json" with { type: "json" };
import { clauseCatalogue, isKnownClause, parseClauseCatalogue } from "./clauses.ts";

const named = new Set(allScenarios.flatMap((scenario) => scenario.clauses));
const pendingIds = new Map(Object.entries(pending as Record<string, string>));

describe("conformance coverage", () => {
  it("every scenario names only clause and decision IDs of the interface", () => {
    const unknown = allScenarios.flatMap((scenario) => scenario.clauses.filter((id) => !isKnownClause(id)).map((id) => `${id} in "${scenario.title}"`));
    expect(unknown).toEqual([]);
  });

  it("scenario titles are unique (expectations and reports key on them)", () => {
    const titles = allScenarios.map((scenario) => scenario.title);
    expect(titles.filter((title, index) => titles.indexOf(title) !== index)).toEqual([]);
  });

  it("every clause of clauses.md is named by a scenario, or listed as pending with the work that will cover it", () => {
    const uncovered = clauseCatalogue.filter((entry) => entry.kind === "clause" && !named.has(entry.id) && !pendingIds.has(entry.id)).map((entry) => entry.id);
    expect(uncovered).toEqual([]);
  });

  it("no pending entry is covered already (remove it from conformance/coverage-pending.json) or unknown", () => {
    const stale = [...pendingIds.keys()].filter((id) => named.has(id) || !isKnownClause(id));
    expect(stale).toEqual([]);
  });

  const specDir = join(import.meta.dir, "..", "..", "shared", "spec");
  it("the clause catalogue shipped in conformance/clauses.json matches the interface's clauses.md and decisions.md", () => {
    // The suite ships its own copy so it runs without the spec folder; where the folder is beside the
    // repository (development and CI), the copy must be current: `bun tools/sync-clauses.ts` refreshes it.
    if (!existsSync(join(specDir, "clauses.md"))) throw new Error(`the interface specification is not at ${specDir}`);
    const fresh = parseClauseCatalogue(readFileSync(join(specDir, "clauses.md"), "utf8"), readFileSync(join(specDir, "decisions.md"), "utf8"));
    expect(clauseCatalogue).toEqual(fresh);
    expect(fresh.filter((entry) => entry.kind === "clause").length).toBeGreaterThan(100);
  });
});
