/**
 * A vitest global setup that starts one svc-hub for the test run and stops it at the end:
 *   // vitest.config.ts
 *   export default defineConfig({ test: { globalSetup: ["svc-hub/launcher/vitest"] } });
 *   // a test
 *   import { inject } from "vitest";
 *   const url = inject("svcHubUrl"), adminToken = inject("svcHubAdminToken");
 * With options of its own, a project's setup file exports `createSvcHubSetup({ ... })` instead.
 *
 * Plain JavaScript so that Node runs it as it is; its types are vitest-setup.d.mts. It needs nothing of
 * vitest's: the project it is given provides the values.
 */
import { startSvcHub } from "./launcher.mjs";

/** A global setup that starts svc-hub with `options` (those of startSvcHub) and stops it once the run ends. */
export function createSvcHubSetup(options = {}) {
  return async function setup(project) {
    const hub = await startSvcHub(options);
    project.provide("svcHubUrl", hub.url);
    project.provide("svcHubAdminToken", hub.adminToken);
    return async () => {
      await hub.stop();
    };
  };
}

export default createSvcHubSetup();
