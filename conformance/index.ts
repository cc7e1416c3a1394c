import type { Scenario } from "../harness/scenario.ts";
import { generalScenarios } from "./general.scenarios.ts";
import { operationsScenarios } from "./operations.scenarios.ts";
import { sessionScenarios } from "./session.scenarios.ts";

/** Every conformance scenario, area by area. */
export const allScenarios: readonly Scenario[] = [...generalScenarios, ...operationsScenarios, ...sessionScenarios];
