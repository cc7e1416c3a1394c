/**
 * `globalSetup: ["svc-hub/launcher/vitest"]`: one svc-hub for a vitest run. Tests read where it listens with
 * `inject("svcHubUrl")` and its admin token with `inject("svcHubAdminToken")`.
 */
import type { SvcHubOptions } from "./launcher.mjs";

declare module "vitest" {
  export interface ProvidedContext {
    /** Where the run's svc-hub listens, e.g. `http://127.0.0.1:41234`. */
    svcHubUrl: string;
    /** Its admin API's bearer token. */
    svcHubAdminToken: string;
  }
}

/** What vitest hands a global setup: the part this one uses. */
interface ProvidingProject {
  provide(key: "svcHubUrl" | "svcHubAdminToken", value: string): void;
}

/** A global setup that starts svc-hub with `options` and stops it once the run ends. */
export declare function createSvcHubSetup(
  options?: SvcHubOptions,
): (project: ProvidingProject) => Promise<() => Promise<void>>;

declare const setup: ReturnType<typeof createSvcHubSetup>;
export default setup;
