/**
 * svc-hub for the conformance CLI's in-process run, without a socket:
 *
 *   bun harness/cli.ts --in-process conformance/implementations/svc-hub/in-process.ts --impl svc-hub
 *
 * An in-process module (harness/modules.ts, InProcessModule) builds its implementation when imported and exports
 * its `fetch` handler; here also the admin token, the fixtures its demo has beyond demo.md's (so that every
 * scenario runs) and `close`, which the CLI calls after the run.
 */
import { openDemoService } from "../../../adapters/server/demo-service.ts";
import { svcHubFixtures } from "./in-process-target.ts";

const service = await openDemoService();
service.start();

export function fetch(request: Request): Promise<Response> {
  return service.app.handle(request);
}

export const adminToken: string = service.deps.adminToken;

export const fixtures = svcHubFixtures;

export function close(): Promise<void> {
  return service.close();
}
