/**
 * The two kinds of module the conformance CLI is given and imports (dynamically: the engine imports no
 * implementation and no scenarios of its own): the scenarios it runs (`--scenarios`) and, for a run without a
 * socket, the implementation's fetch handler (`--in-process`).
 */
import { existsSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { ClauseEntry } from "./clauses.ts";
import type { Scenario } from "./scenario.ts";
import { type TargetFileFixtures, targetFileProblems } from "./target-file.ts";

/**
 * A scenarios module: `allScenarios`, the scenarios in the order they run (defineScenarios makes them), and
 * optionally `clauseCatalogue`, every clause and decision ID they are reported against, with its text, so that
 * COMPATIBILITY.md also lists the IDs no scenario names. svc-hub's is conformance/index.ts ("svc-hub/conformance").
 */
export interface ScenarioModule {
  readonly allScenarios: readonly Scenario[];
  readonly clauseCatalogue?: readonly ClauseEntry[];
}

/**
 * An in-process module: it builds its implementation when imported and exports, by name or as the members of
 * its default export (Bun's `export default { fetch }`):
 * - `fetch(request)`, required: answers a request as the implementation's server would, without a socket;
 * - `adminToken`: the bearer token of its admin routes (the command line's and a target file's win);
 * - `fixtures`: its tenants, users and configuration as a target file's `fixtures` (demo.md's for what it leaves
 *   out; a target file's win);
 * - `name`: its name in the reports (default "in-process");
 * - `close()`: called once after the run, to stop its workers and close its store.
 */
export interface InProcessModule {
  readonly fetch: (request: Request) => Promise<Response> | Response;
  readonly adminToken?: string | null;
  readonly fixtures?: TargetFileFixtures;
  readonly name?: string;
  readonly close?: () => Promise<void> | void;
}

/**
 * The scenarios a program bundled into one file carries (svc-hub's single executable): it has no scenario files to
 * import, so it names them here, with the path their folder would have (for `--impl`), before the CLI runs.
 */
let bundledScenarios: { readonly path: string; readonly load: () => Promise<Record<string, unknown>> } | null = null;

export function provideBundledScenarios(path: string, load: () => Promise<Record<string, unknown>>): void {
  bundledScenarios = { path, load };
}

/** The scenarios of this package (svc-hub's conformance/index.ts), the default of `--scenarios`, when it has them. */
export function packageScenariosPath(): string | null {
  if (bundledScenarios) return bundledScenarios.path;
  const path = fileURLToPath(new URL("../conformance/index.ts", import.meta.url));
  return existsSync(path) ? path : null;
}

/**
 * The file of a module named on the command line: a path, taken from `from` (the folder the command was run in),
 * or, when no such file exists and it does not start with `.` or `/`, a package's module as `from` would import it
 * (`svc-hub/conformance`). Throws, saying what was tried, when neither is found.
 */
export function resolveModule(specifier: string, from: string): string {
  const asPath = isAbsolute(specifier) ? specifier : resolve(from, specifier);
  if (existsSync(asPath) && statSync(asPath).isFile()) return asPath;
  if (specifier.startsWith(".") || isAbsolute(specifier)) throw new Error(`${asPath} is not a file`);
  try {
    return createRequire(join(from, "package.json")).resolve(specifier);
  } catch {
    throw new Error(`neither ${asPath} is a file nor can "${specifier}" be imported from ${from}`);
  }
}

async function importFile(path: string): Promise<Record<string, unknown>> {
  if (bundledScenarios?.path === path) return bundledScenarios.load();
  return (await import(pathToFileURL(path).href)) as Record<string, unknown>;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** What is wrong with a scenario (a module's `allScenarios[index]`), or null. */
function scenarioProblem(value: unknown, index: number): string | null {
  const where = `allScenarios[${index}]`;
  if (!isRecord(value)) return `${where} is not a scenario object`;
  if (typeof value.title !== "string") return `${where} has no title`;
  if (typeof value.area !== "string") return `${where} ("${value.title}") has no area`;
  if (!Array.isArray(value.clauses)) return `${where} ("${value.title}") has no clauses`;
  if (!Array.isArray(value.needs)) return `${where} ("${value.title}") has no needs`;
  if (typeof value.run !== "function") return `${where} ("${value.title}") has no run function`;
  return null;
}

/**
 * Imports a scenarios module (ScenarioModule) from its file. Throws when it has no `allScenarios` array of
 * scenarios, or a `clauseCatalogue` that is not an array of `{id, kind}` entries.
 */
export async function loadScenarioModule(path: string): Promise<ScenarioModule> {
  const module = await importFile(path);
  const source = Array.isArray(module.allScenarios) || !isRecord(module.default) ? module : module.default;
  const scenarios = source.allScenarios;
  if (!Array.isArray(scenarios))
    throw new Error(`${path} exports no allScenarios (an array of the scenarios defineScenarios makes)`);
  const problem = scenarios.map(scenarioProblem).find((found) => found !== null);
  if (problem) throw new Error(`${path}: ${problem}`);
  const catalogue = source.clauseCatalogue;
  if (
    catalogue !== undefined &&
    !(
      Array.isArray(catalogue) &&
      catalogue.every(
        (entry) =>
          isRecord(entry) && typeof entry.id === "string" && ["clause", "decision"].includes(String(entry.kind)),
      )
    )
  )
    throw new Error(`${path}: clauseCatalogue must be an array of {id, kind: "clause" | "decision", section, text}`);
  return {
    allScenarios: scenarios as Scenario[],
    ...(catalogue === undefined ? {} : { clauseCatalogue: catalogue as ClauseEntry[] }),
  };
}

/**
 * Imports an in-process module (InProcessModule) from its file, which builds the implementation. Throws when it
 * exports no `fetch` function, or an `adminToken`, `name`, `fixtures` or `close` of the wrong kind.
 */
export async function loadInProcessModule(path: string): Promise<InProcessModule> {
  const module = await importFile(path);
  const source = typeof module.fetch === "function" || !isRecord(module.default) ? module : module.default;
  const { fetch, adminToken, fixtures, name, close } = source;
  if (typeof fetch !== "function")
    throw new Error(`${path} exports no fetch function, (request: Request) => Promise<Response>`);
  if (adminToken !== undefined && adminToken !== null && typeof adminToken !== "string")
    throw new Error(`${path}: adminToken must be a string`);
  if (name !== undefined && typeof name !== "string") throw new Error(`${path}: name must be a string`);
  if (close !== undefined && typeof close !== "function") throw new Error(`${path}: close must be a function`);
  if (fixtures !== undefined) {
    const problems = targetFileProblems({ fixtures });
    if (problems.length > 0) throw new Error(`${path}: its fixtures:\n  ${problems.join("\n  ")}`);
  }
  return {
    fetch: (request) => (fetch as InProcessModule["fetch"]).call(source, request),
    ...(adminToken === undefined ? {} : { adminToken: adminToken as string | null }),
    ...(fixtures === undefined ? {} : { fixtures: fixtures as TargetFileFixtures }),
    ...(name === undefined ? {} : { name: name as string }),
    ...(close === undefined ? {} : { close: () => (close as () => Promise<void> | void).call(source) }),
  };
}

/** Where `--impl <name>` finds `<name>/expectations.json`: the `implementations` folder beside the scenarios module. */
export function implementationsDirOf(scenariosPath: string): string {
  return join(dirname(scenariosPath), "implementations");
}
