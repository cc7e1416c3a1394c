/**
 * The conformance engine, for use from other hosts: targets, the client, the scenario DSL, the capabilities, the
 * runner and the reports. It holds no implementation and no scenarios (svc-hub's are "svc-hub/conformance").
 */

export * from "./admin-token.ts";
export * from "./capabilities.ts";
export * from "./clauses.ts";
export * from "./client.ts";
export * from "./expect.ts";
export * from "./expectations.ts";
export * from "./fixture-check.ts";
export * from "./modules.ts";
export * from "./property.ts";
export * from "./reachability.ts";
export * from "./report.ts";
export * from "./runner.ts";
export * from "./scenario.ts";
export * from "./sessions.ts";
export * from "./target.ts";
export * from "./target-file.ts";
