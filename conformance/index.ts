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

/** Every conformance scenario, area by area. */
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
