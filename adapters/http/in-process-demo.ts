import { inProcessBase } from "../../harness/target.ts";
import { type DemoServiceOptions, openDemoService } from "../server/demo-service.ts";
import type { Service } from "../server/service.ts";

/**
 * Test support: the demo service on the memory store with instant timing, and a call of its app in-process
 * (`call("/event?…")`); `closeLater` receives its close, for the test's afterEach.
 */
export async function openInProcessDemo(
  adminToken: string,
  closeLater: (close: () => Promise<unknown>) => void,
  options: DemoServiceOptions = {},
): Promise<{ service: Service; call: (path: string, init?: RequestInit) => Promise<Response> }> {
  const service = await openDemoService({ timing: "instant", adminToken, ...options });
  closeLater(() => service.close());
  const call = (path: string, init: RequestInit = {}) =>
    service.app.handle(new Request(`${inProcessBase}${path}`, init));
  return { service, call };
}
