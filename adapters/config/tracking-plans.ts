/**
 * Issue 43: the tracking plans of the configuration compiled with ajv (JSON Schema draft 2020-12), once per
 * configuration, into the core's TrackingPlans port (core/tracking-plan holds the rules of the verdict). A
 * schema ajv cannot compile is a configuration error naming its account, profile and event.
 *
 * ajv is loaded (`loadPlanCompiler`) by the first configuration that has a plan: a service without one (the
 * demo's, most tests') starts without it. Imported, not required, so that a bundle (the executable) keeps it in a
 * file of its own, which a start never reads unless a plan comes; compiling then stays synchronous.
 */
import type * as Ajv2020Module from "ajv/dist/2020";
import type { ErrorObject, ValidateFunction } from "ajv/dist/2020";
import {
  type AccountConfig,
  ConfigError,
  type ConfigProblem,
  type JsonSchema,
  type ServiceConfig,
} from "../../core/config/index.ts";
import type { EventSchemaCheck, ProfilePlanChecks, TrackingPlans, Violation } from "../../core/ports/index.ts";
import { err, ok, type Result } from "../../core/result.ts";

let Ajv2020: typeof Ajv2020Module.default | undefined;

/**
 * Loads ajv, which `trackingPlansOf` needs to compile the plans of `config` (always, without one). A no-op for a
 * configuration without a plan, or once loaded.
 */
export async function loadPlanCompiler(config?: ServiceConfig): Promise<void> {
  if (Ajv2020 !== undefined || (config !== undefined && !hasTrackingPlan(config.accounts))) return;
  Ajv2020 = (await import("ajv/dist/2020")).default;
}

function loadedAjv(): typeof Ajv2020Module.default {
  if (Ajv2020 === undefined)
    throw new Error(
      "trackingPlansOf: ajv, which compiles the tracking plans, is not loaded; await loadPlanCompiler() first",
    );
  return Ajv2020;
}

/** The compiled plans of each configuration read, so the loader's compilation serves the service too. */
const compiled = new WeakMap<ServiceConfig, TrackingPlans>();

/**
 * The configuration's tracking plans, compiled the first time they are asked for (by the loader, which then
 * refuses a configuration whose schemas do not compile); null when no profile has one. `source` names the
 * configuration in the error.
 */
export function trackingPlansOf(
  config: ServiceConfig,
  source = "configuration",
): Result<TrackingPlans | null, ConfigError> {
  if (!hasTrackingPlan(config.accounts)) return ok(null);
  const known = compiled.get(config);
  if (known) return ok(known);
  const plans = compileTrackingPlans(config.accounts);
  if (!plans.ok) return err(new ConfigError(source, plans.error));
  compiled.set(config, plans.value);
  return ok(plans.value);
}

function hasTrackingPlan(accounts: readonly AccountConfig[]): boolean {
  return accounts.some((account) => account.profiles.some((profile) => profile.trackingPlan !== undefined));
}

function compileTrackingPlans(accounts: readonly AccountConfig[]): Result<TrackingPlans, ConfigProblem[]> {
  const Ajv = loadedAjv();
  const problems: ConfigProblem[] = [];
  const byProfile = new Map<string, ProfilePlanChecks>();
  accounts.forEach((account, a) => {
    account.profiles.forEach((profile, p) => {
      const plan = profile.trackingPlan;
      if (plan === undefined) return;
      // One validator per profile: a schema's $id is its own profile's business.
      const ajv = new Ajv({
        allErrors: true,
        // A misspelt keyword ("requried") is refused rather than ignored; the other strict checks are style.
        strictSchema: true,
        strictNumbers: true,
        strictTypes: false,
        strictTuples: false,
        strictRequired: false,
        // Draft 2020-12's default: `format` is an annotation; `pattern` checks the text.
        validateFormats: false,
        logger: false,
      });
      const path = `/accounts/${a}/profiles/${p}/trackingPlan`;
      const where = `account "${account.name}", profile "${profile.name}"`;
      const compile = (schema: JsonSchema, at: string, what: string): EventSchemaCheck | null => {
        try {
          return checkOf(ajv.compile(schema as object | boolean));
        } catch (error) {
          problems.push({
            path: at,
            message: `${where}, ${what}: not a JSON Schema ajv can compile: ${(error as Error).message}`,
          });
          return null;
        }
      };
      const byEvent = new Map<string, EventSchemaCheck>();
      for (const [name, schema] of Object.entries(plan.events)) {
        const check = compile(schema, `${path}/events/${pointerSegment(name)}`, `event "${name}"`);
        if (check) byEvent.set(name, check);
      }
      const allEvents =
        plan.allEvents === undefined ? null : compile(plan.allEvents, `${path}/allEvents`, "all events (allEvents)");
      byProfile.set(profileKey(account.name, profile.name), { byEvent, allEvents });
    });
  });
  if (problems.length > 0) return err(problems);
  return ok({ checksOf: (account, profile) => byProfile.get(profileKey(account, profile)) });
}

function profileKey(account: string, profile: string): string {
  return `${account}\n${profile}`;
}

function checkOf(validate: ValidateFunction): EventSchemaCheck {
  return (params) => (validate(params) ? [] : (validate.errors ?? []).map((error) => violationOf(error, params)));
}

/**
 * An ajv error as a violation: where it is (the instance path, with the property a `required` or
 * `additionalProperties` error names), the keyword, the value found there and ajv's message.
 */
function violationOf(error: ErrorObject, params: Readonly<Record<string, unknown>>): Violation {
  const named = propertyNamed(error);
  const path = named === undefined ? error.instancePath : `${error.instancePath}/${pointerSegment(named)}`;
  const segments = path === "" ? [] : path.slice(1).split("/").map(unescapeSegment);
  const found = valueAt(params, segments);
  return {
    parameter: segments[0] ?? "",
    path,
    rule: error.keyword,
    ...(found.present ? { value: found.value } : {}),
    message: error.message ?? error.keyword,
  };
}

function propertyNamed(error: ErrorObject): string | undefined {
  const named = error.params as Record<string, unknown>;
  for (const key of ["missingProperty", "additionalProperty", "unevaluatedProperty"]) {
    if (typeof named[key] === "string") return named[key];
  }
  return undefined;
}

/** The value at a path of own properties; not present where the path leads nowhere (a missing parameter). */
function valueAt(root: unknown, segments: readonly string[]): { present: boolean; value?: unknown } {
  let value = root;
  for (const segment of segments) {
    if (value === null || typeof value !== "object" || !Object.hasOwn(value, segment)) return { present: false };
    value = (value as Record<string, unknown>)[segment];
  }
  return { present: true, value };
}

function pointerSegment(name: string): string {
  return name.replaceAll("~", "~0").replaceAll("/", "~1");
}

function unescapeSegment(segment: string): string {
  return segment.replaceAll("~1", "/").replaceAll("~0", "~");
}
