/**
 * svc-hub core: runtime-neutral domain logic. It imports nothing outside this folder but the `cookie` package
 * (plain functions on strings), so any host (Bun, Deno, Node, a browser) can run svc-hub's behaviour with it: `import { collect, ports, ok } from "svc-hub/core"`.
 *
 * The public API, grouped by area: one namespace per area, holding exactly what that area's door
 * (core/<area>/index.ts) offers: its use cases, the rules a host may call, its domain types and errors. The
 * ports a host implements are `ports`. Beside them, flat, what every area speaks: Result and the machine
 * kernel. What an area's door does not offer stays inside the area. docs/other-hosts.md shows a host.
 */

export * as clock from "./clock/index.ts";
export * as collect from "./collect/index.ts";
export * as config from "./config/index.ts";
export * as datalayer from "./datalayer/index.ts";
export * as errors from "./errors/index.ts";
export * as files from "./files/index.ts";
export * as inspect from "./inspect/index.ts";
export * as json from "./json/index.ts";
export {
  backoffDelay,
  decideRetry,
  dueAfter,
  type Machine,
  type RetryDecision,
  type RetryPolicy,
  type Transition,
  type TransitionResult,
} from "./machine.ts";
export * as moments from "./moments/index.ts";
export * as names from "./names/index.ts";
export * as overview from "./overview/index.ts";
export * as ports from "./ports/index.ts";
export * as privacy from "./privacy/index.ts";
export * as profiles from "./profiles/index.ts";
export { andThen, err, mapValue, ok, type Result } from "./result.ts";
export * as revisions from "./revisions/index.ts";
export * as service from "./service/index.ts";
export * as session from "./session/index.ts";
export * as testingTools from "./testing-tools/index.ts";
export * as timing from "./timing/index.ts";
export * as trackingPlan from "./tracking-plan/index.ts";
export * as values from "./values/index.ts";
export * as visitors from "./visitors/index.ts";
