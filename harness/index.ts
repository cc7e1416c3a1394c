/** The conformance engine, for use from other hosts: targets, the client, the scenario DSL and the runner. */

export * from "./admin-token.ts";
export * from "./clauses.ts";
export * from "./client.ts";
export * from "./expect.ts";
export * from "./expectations.ts";
export * from "./fixture-check.ts";
export * from "./property.ts";
export * from "./reachability.ts";
export * from "./report.ts";
export * from "./runner.ts";
export * from "./scenario.ts";
export * from "./sessions.ts";
export * from "./svc-hub-admin.ts";
export * from "./svc-hub-clock.ts";
export * from "./target.ts";
export * from "./target-file.ts";
