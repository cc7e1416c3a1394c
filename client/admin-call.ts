/** What the test helpers of client/ share: the part of a client they use, and how a refused call is reported. */
import type { SvcHubClient } from "./index.ts";
import { SvcHubClientError } from "./index.ts";

/** What a helper needs of a client: its admin API (a client made with the admin token). */
export type AdminClient = Pick<SvcHubClient, "admin">;

/** The data of a call's answer; SvcHubClientError, naming the call, when svc-hub refused it. */
export function answered<T>(call: string, result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data === undefined) throw new SvcHubClientError(call, result.response.status, result.error);
  return result.data;
}
