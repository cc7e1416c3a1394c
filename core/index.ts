/**
 * svc-hub core: runtime-neutral domain logic. It imports nothing outside this folder, so any host
 * (Bun, Deno, Node, a browser) can use it: `import { managementError } from "svc-hub/core"`.
 */

export * from "./clock/virtual-clock.rules.ts";
export * from "./config/config.model.ts";
export * from "./datalayer/datalayer.machine.ts";
export * from "./datalayer/datalayer.rules.ts";
export * from "./errors/index.ts";
export * from "./files/date-pattern.rules.ts";
export * from "./files/file-import.machine.ts";
export * from "./files/file-name.rules.ts";
export * from "./files/file-query.rules.ts";
export * from "./files/file-record.rules.ts";
export * from "./files/file-row.rules.ts";
export * from "./json/deep-freeze.rules.ts";
export * from "./json/json-body.rules.ts";
export type * from "./ports/index.ts";
export * from "./result.ts";
export * from "./revisions/bundle-members.rules.ts";
export * from "./revisions/revision.rules.ts";
export * from "./revisions/revision-id.rules.ts";
export * from "./session/lockout.rules.ts";
export * from "./session/secrets.rules.ts";
export * from "./session/session.rules.ts";
export * from "./timing/timing.presets.ts";
