import { adminTokenNeeded } from "./admin-token.ts";
import type { Target } from "./target.ts";

/**
 * What some scenarios need of a target beyond the interface's own routes and the admin routes DEC-OPS-04 names:
 * admin routes an implementation may or may not have, each specified route by route in conformance/INTERPRETING.md.
 *
 * - test-clock: a test clock the admin API can read, set and advance (DEC-OPS-02 asks for one but names no
 *   route): `GET` and `PUT /admin/clock`, `POST /admin/clock/advance`, and `POST /admin/wait {"scheduled": false}`,
 *   which runs only the background work due now on that clock.
 * - event-log: the stored events (`GET /admin/events`) and the collection counters (`GET /admin/collect/stats`).
 * - user-admin: users and their API keys (`/admin/users`, `/admin/users/{email}/api-keys`, `.../disabled`).
 *
 * Each is an admin route behind the admin token (so a scenario needing one is skipped without a token), and each
 * is probed once before the run: a target that does not have it gets the scenarios needing it skipped, with the
 * reason, instead of failed.
 */
export type Capability = "test-clock" | "event-log" | "user-admin";

export const capabilityNames: readonly Capability[] = ["test-clock", "event-log", "user-admin"];

/** Whether the target has a capability, and if not, why scenarios needing it are skipped. */
export type CapabilityProbe = { readonly available: true } | { readonly available: false; readonly reason: string };

/** What the probes before a run found, by capability; a capability not probed is absent. */
export type CapabilityProbes = Readonly<Partial<Record<Capability, CapabilityProbe>>>;

interface CapabilityDefinition {
  /** What it is, in the words of a skip's reason. */
  readonly what: string;
  /** The routes GET with the admin token before the run; each must answer 200 (and pass `check`). */
  readonly probes: readonly string[];
  /** What is wrong with a 200 answer's body, or null. */
  readonly check?: (body: string) => string | null;
}

function numericNowMs(body: string): string | null {
  let nowMs: unknown;
  try {
    nowMs = (JSON.parse(body) as { nowMs?: unknown }).nowMs;
  } catch {
    nowMs = undefined;
  }
  return typeof nowMs === "number" && Number.isFinite(nowMs) ? null : "answered 200 without a numeric nowMs";
}

export const capabilityDefinitions: Readonly<Record<Capability, CapabilityDefinition>> = {
  "test-clock": {
    what: "a test clock (GET and PUT /admin/clock, POST /admin/clock/advance; DEC-OPS-02 asks for a virtual clock but names no route)",
    probes: ["/admin/clock"],
    check: numericNowMs,
  },
  "event-log": {
    what: "the stored events and collection counters (GET /admin/events, GET /admin/collect/stats)",
    probes: ["/admin/events?limit=1", "/admin/collect/stats"],
  },
  "user-admin": {
    what: "users and API keys (/admin/users, /admin/users/{email}/api-keys, /admin/users/{email}/disabled)",
    probes: ["/admin/users"],
  },
};

/** The start of a skip's reason for want of a capability. */
export function capabilityNeeded(capability: Capability): string {
  return `needs the capability ${capability}, ${capabilityDefinitions[capability].what}; specified in conformance/INTERPRETING.md`;
}

/**
 * GETs one admin route with the token, before the run: available when it answers 200 and `check` (given the
 * body) finds nothing wrong; otherwise the reason a scenario needing it is skipped, starting with `needs`.
 */
export async function probeAdminRoute(
  target: Target & { readonly adminToken: string },
  route: string,
  needs: string,
  check: (body: string) => string | null = () => null,
): Promise<CapabilityProbe> {
  const url = `${target.urls.base}${route}`;
  let status: number;
  let body: string;
  try {
    const response = await target.send(new Request(url, { headers: { authorization: `Bearer ${target.adminToken}` } }));
    status = response.status;
    body = await response.text().catch(() => "");
  } catch (error) {
    return {
      available: false,
      reason: `${needs}; GET ${url} did not answer before the run: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  const problem = status !== 200 ? `answered ${status}` : check(body);
  return problem === null
    ? { available: true }
    : { available: false, reason: `${needs}, which the target does not have: GET ${route} ${problem} before the run` };
}

/**
 * Asks the target once, before the run, whether it has a capability: each of its probe routes answering 200
 * (with the admin token) means it has. Anything else (404 from an implementation without it, say) makes every
 * scenario that needs it a skip with the reason, instead of a failure. Without an admin token it is not asked.
 */
export async function probeCapability(target: Target, capability: Capability): Promise<CapabilityProbe> {
  const { adminToken } = target;
  if (!adminToken) return { available: false, reason: adminTokenNeeded };
  const definition = capabilityDefinitions[capability];
  for (const route of definition.probes) {
    const probe = await probeAdminRoute(
      { ...target, adminToken },
      route,
      capabilityNeeded(capability),
      definition.check,
    );
    if (!probe.available) return probe;
  }
  return { available: true };
}

/** The capabilities the scenarios need, in the order of capabilityNames, with how many scenarios need each. */
export function neededCapabilities(
  scenarios: ReadonlyArray<{ readonly needs: readonly string[] }>,
): Array<{ readonly capability: Capability; readonly scenarios: number }> {
  return capabilityNames
    .map((capability) => ({
      capability,
      scenarios: scenarios.filter((scenario) => scenario.needs.includes(capability)).length,
    }))
    .filter((entry) => entry.scenarios > 0);
}

/** Probes each capability the scenarios need that `known` does not hold yet; a target without a token is not asked. */
export async function probeCapabilities(
  target: Target,
  scenarios: ReadonlyArray<{ readonly needs: readonly string[] }>,
  known: CapabilityProbes = {},
): Promise<CapabilityProbes> {
  const probes: Partial<Record<Capability, CapabilityProbe>> = { ...known };
  if (!target.adminToken) return probes;
  for (const { capability } of neededCapabilities(scenarios)) {
    if (probes[capability] === undefined) probes[capability] = await probeCapability(target, capability);
  }
  return probes;
}
