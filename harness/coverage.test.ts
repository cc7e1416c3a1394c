/**
 * Coverage of the interface by the conformance scenarios: every scenario names only known clause and
 * decision IDs, titles are unique, and every ID of clauses.md and of decisions.md is named by a scenario,
 * except those listed in conformance/coverage-pending.json, each with the work that will cover it or why no
 * black-box scenario can. A pending entry that has become covered fails too, so the list only shrinks. An
 * entry `{uncovered, why}` is a clause that scenarios check only in part: it must be named by one, and says
 * which part no scenario checks and why.
 */
import { describe, expect, it } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { clauseCatalogue, isKnownClause } from "../conformance/clauses.ts";
import pending from "../conformance/coverage-pending.json" with { type: "json" };
import { allScenarios } from "../conformance/index.ts";
import { capabilityDefinitions, capabilityNames } from "./capabilities.ts";
import { parseClauseCatalogue } from "./clauses.ts";

const named = new Set(allScenarios.flatMap((scenario) => scenario.clauses));
/** A clause that scenarios check only in part: the part they do not, and why. */
interface PartlyPending {
  readonly uncovered: string;
  readonly why: string;
}

const entries = Object.entries(pending as Record<string, string | PartlyPending>);
const pendingIds = new Map(entries.filter((entry): entry is [string, string] => typeof entry[1] === "string"));
const partlyPendingIds = new Map(
  entries.filter((entry): entry is [string, PartlyPending] => typeof entry[1] !== "string"),
);

describe("conformance coverage", () => {
  it("every scenario names only clause and decision IDs of the interface", () => {
    const unknown = allScenarios.flatMap((scenario) =>
      scenario.clauses.filter((id) => !isKnownClause(id)).map((id) => `${id} in "${scenario.title}"`),
    );
    expect(unknown).toEqual([]);
  });

  it("scenario titles are unique (expectations and reports key on them)", () => {
    const titles = allScenarios.map((scenario) => scenario.title);
    expect(titles.filter((title, index) => titles.indexOf(title) !== index)).toEqual([]);
  });

  it("every clause of clauses.md is named by a scenario, or listed as pending with the work that will cover it", () => {
    const uncovered = clauseCatalogue
      .filter((entry) => entry.kind === "clause" && !named.has(entry.id) && !pendingIds.has(entry.id))
      .map((entry) => entry.id);
    expect(uncovered).toEqual([]);
  });

  it("every decision of decisions.md is named by a scenario, or listed as pending with the work that will cover it", () => {
    const uncovered = clauseCatalogue
      .filter((entry) => entry.kind === "decision" && !named.has(entry.id) && !pendingIds.has(entry.id))
      .map((entry) => entry.id);
    expect(uncovered).toEqual([]);
  });

  it("every pending entry says why, in a sentence", () => {
    const terse = [...pendingIds]
      .filter(([, why]) => typeof why !== "string" || why.trim().length < 20)
      .map(([id]) => id);
    expect(terse).toEqual([]);
  });

  it("no pending entry is covered already (remove it from conformance/coverage-pending.json) or unknown", () => {
    const stale = [...pendingIds.keys()].filter((id) => named.has(id) || !isKnownClause(id));
    expect(stale).toEqual([]);
  });

  it("every partly pending entry names a known clause that a scenario checks, the part left and why, in sentences", () => {
    // One that no scenario names is wholly pending (a plain entry); one whose part gets covered is removed.
    const wrong = [...partlyPendingIds]
      .filter(
        ([id, entry]) =>
          !isKnownClause(id) ||
          !named.has(id) ||
          typeof entry?.uncovered !== "string" ||
          typeof entry.why !== "string" ||
          entry.uncovered.trim().length < 20 ||
          entry.why.trim().length < 20,
      )
      .map(([id]) => id);
    expect(wrong).toEqual([]);
  });

  /** The scenarios calling a helper or route of `helpers` that do not declare `need`, and how many declare it. */
  function undeclared(helpers: RegExp, need: (typeof capabilityNames)[number]) {
    return {
      undeclared: allScenarios
        .filter((scenario) => helpers.test(scenario.run.toString()) && !scenario.needs.includes(need))
        .map((scenario) => scenario.title),
      declaring: allScenarios.filter((scenario) => scenario.needs.includes(need)).length,
    };
  }

  // The helpers that reach a capability's routes: a scenario calling one without the need would fail, not skip,
  // against an implementation that has only the specified admin API (DEC-OPS-04).
  it("every scenario that reads the stored events or the collection counters declares the need event-log", () => {
    const found = undeclared(
      /\b(storedEvent|eventsWithTrace|expectNotStored|queryEvents|collectStats)\(|capabilityHeaders\("event-log"\)|\/admin\/(events|collect)/,
      "event-log",
    );
    expect(found.undeclared).toEqual([]);
    expect(found.declaring).toBeGreaterThan(25);
  });

  it("every scenario that makes users or API keys through the admin API declares the need user-admin", () => {
    const found = undeclared(/\bmakeUser\(|capabilityHeaders\("user-admin"\)|\/admin\/users/, "user-admin");
    expect(found.undeclared).toEqual([]);
    expect(found.declaring).toBeGreaterThan(5);
  });

  it("every scenario that moves or reads the test clock declares the need test-clock", () => {
    // DEC-OPS-02 names no route for the clock: a scenario using these routes without the need would fail, not
    // skip, against an implementation whose clock has other routes (or none).
    const found = undeclared(
      /\b(advanceClock|readClock|clockNow|clockHeaders|publishPending|runDueDeletions|runDueWork)\(|capabilityHeaders\("test-clock"\)|\/admin\/clock/,
      "test-clock",
    );
    expect(found.undeclared).toEqual([]);
    expect(found.declaring).toBeGreaterThan(20);
  });

  it("conformance/INTERPRETING.md specifies every capability a scenario needs, with the routes it is probed by", () => {
    const text = readFileSync(join(import.meta.dir, "..", "conformance", "INTERPRETING.md"), "utf8");
    const needed = new Set(allScenarios.flatMap((scenario) => scenario.needs));
    const missing = capabilityNames.flatMap((name) => {
      const section = new RegExp(`^## \`${name}\``, "m").exec(text);
      if (!section) return needed.has(name) ? [`no section "## \`${name}\`"`] : [];
      const next = text.indexOf("\n## ", section.index + 1);
      const body = text.slice(section.index, next < 0 ? undefined : next);
      return capabilityDefinitions[name].probes
        .map((route) => route.replace(/\?.*/, ""))
        .filter((route) => !body.includes(route))
        .map((route) => `${name}: its probe route ${route} is not named in its section`);
    });
    expect(missing).toEqual([]);
    expect([...needed].filter((need) => need !== "admin" && !capabilityNames.includes(need))).toEqual([]);
    // Its table counts the scenarios needing each, as they are.
    const counted = Object.fromEntries(
      [...text.matchAll(/^\| `([\w-]+)` \|.*\| (\d+) \|$/gm)].map((row) => [row[1], Number(row[2])]),
    );
    const counts = Object.fromEntries(
      ["admin", ...capabilityNames].map((need) => [
        need,
        allScenarios.filter((scenario) => scenario.needs.includes(need as "admin")).length,
      ]),
    );
    expect(counted).toEqual(counts);
  });

  const specDir = join(import.meta.dir, "..", "..", "shared", "spec");
  it("the clause catalogue shipped in conformance/clauses.json matches the interface's clauses.md and decisions.md", () => {
    // The suite ships its own copy so it runs without the spec folder; where the folder is beside the
    // repository (development and CI), the copy must be current: `bun tools/sync-clauses.ts` refreshes it.
    if (!existsSync(join(specDir, "clauses.md"))) throw new Error(`the interface specification is not at ${specDir}`);
    const fresh = parseClauseCatalogue(
      readFileSync(join(specDir, "clauses.md"), "utf8"),
      readFileSync(join(specDir, "decisions.md"), "utf8"),
    );
    expect(clauseCatalogue).toEqual(fresh);
    expect(fresh.filter((entry) => entry.kind === "clause").length).toBeGreaterThan(100);
  });
});
