/**
 * svc-hub's own app as a conformance target without a socket, for svc-hub's tests: its demo tenants (or a
 * configuration of the test's) and the fixtures that go with them. The conformance CLI's in-process run loads
 * in-process.ts beside this file instead, which builds the same app.
 */
import { type DemoServiceOptions, openDemoService } from "../../../adapters/server/demo-service.ts";
import type { Service } from "../../../adapters/server/service.ts";
import { inProcessTarget, type Target, type TargetFixtures } from "../../../harness/target.ts";
import { fixturesOf, type TargetFileFixtures } from "../../../harness/target-file.ts";

/** What svc-hub's demo has beyond the demo tenants of demo.md: the optional fixture engines.attributesOnly. */
export const svcHubFixtures: TargetFileFixtures = { engines: { attributesOnly: "demo-engine-attributes" } };

/**
 * svc-hub's own demo configuration: the demo tenants of demo.md (demoFixtures) and the optional fixtures its
 * demo adds. The fixtures of svc-hub in-process, and of conformance/targets/svc-hub-demo.json.
 */
export const svcHubDemoFixtures: TargetFixtures = fixturesOf({ fixtures: svcHubFixtures });

export interface InProcessService {
  readonly target: Target;
  readonly service: Service;
  close(): Promise<void>;
}

/**
 * svc-hub's own app with the demo tenants (or `options.config`'s), reached without a socket: the fastest target
 * there is. Its fixtures default to svc-hub's demo (svcHubDemoFixtures) with the demo tenants, else to demo.md's.
 */
export async function openInProcessTarget(
  options: {
    readonly store?: DemoServiceOptions["store"];
    readonly fixtures?: TargetFixtures;
    readonly hasher?: DemoServiceOptions["hasher"];
    readonly config?: DemoServiceOptions["config"];
  } = {},
): Promise<InProcessService> {
  const service = await openDemoService({ store: options.store, hasher: options.hasher, config: options.config });
  service.start();
  return {
    target: inProcessTarget({
      handle: (request) => service.app.handle(request),
      adminToken: service.deps.adminToken,
      fixtures: options.fixtures ?? (options.config === undefined ? svcHubDemoFixtures : undefined),
    }),
    service,
    close: () => service.close(),
  };
}
