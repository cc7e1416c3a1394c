import type { Scenario } from "../harness/scenario.ts";
import { collectScenarios } from "./collect.scenarios.ts";
import { dataLayerScenarios } from "./datalayer.scenarios.ts";
import { fileScenarios } from "./files.scenarios.ts";
import { generalScenarios } from "./general.scenarios.ts";
import { identityScenarios } from "./identity.scenarios.ts";
import { momentsScenarios } from "./moments.scenarios.ts";
import { operationsScenarios } from "./operations.scenarios.ts";
import { privacyScenarios } from "./privacy.scenarios.ts";
import { revisionScenarios } from "./revisions.scenarios.ts";
import { sessionScenarios } from "./session.scenarios.ts";
import { sessionGuardScenarios } from "./session-guard.scenarios.ts";

export { clauseCatalogue } from "./clauses.ts";

/**
 * The scenarios module the conformance CLI loads (`--scenarios`, this one by default): every conformance scenario,
 * area by area, and (above) the catalogue of clause and decision IDs they are reported against.
 */
export const allScenarios: readonly Scenario[] = [
  ...generalScenarios,
  ...operationsScenarios,
  ...sessionScenarios,
  ...sessionGuardScenarios,
  ...dataLayerScenarios,
  ...collectScenarios,
  ...identityScenarios,
  ...revisionScenarios,
  ...momentsScenarios,
  ...privacyScenarios,
  ...fileScenarios,
];
