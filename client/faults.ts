/**
 * Fault injection's helpers (issue 43): make the next matching requests fail on purpose, list, remove and clear
 * the faults (POST, GET, DELETE /admin/faults). Each throws SvcHubClientError when svc-hub refuses the call.
 *
 *   await addFault(hub, { path: "/event", status: 503, probability: 0.5, seed: 7, times: 100 });
 */
import type { SvcHubClient } from "./index.ts";
import { SvcHubClientError } from "./index.ts";
import type { paths } from "./openapi.types.ts";

/** A fault as POST /admin/faults takes it: `path` and what it does (status, delay, drop, malformed, trickle, ...). */
export type FaultInput = paths["/admin/faults"]["post"]["requestBody"]["content"]["application/json"];
/** A fault as svc-hub shows it: its id and how many more requests it answers. */
export type FaultView = paths["/admin/faults"]["post"]["responses"][201]["content"]["application/json"];

type AdminClient = Pick<SvcHubClient, "admin">;

/** Makes the next matching requests fail on purpose; answers the fault with its id. */
export async function addFault(hub: AdminClient, fault: FaultInput): Promise<FaultView> {
  const { data, error, response } = await hub.admin.POST("/admin/faults", { body: fault });
  if (data === undefined) throw new SvcHubClientError("POST /admin/faults", response.status, error);
  return data;
}

/** The faults still waiting for requests, oldest first. */
export async function listFaults(hub: AdminClient): Promise<FaultView[]> {
  const { data, error, response } = await hub.admin.GET("/admin/faults");
  if (data === undefined) throw new SvcHubClientError("GET /admin/faults", response.status, error);
  return data.faults;
}

/** Removes one fault; false when there was none of that id. */
export async function removeFault(hub: AdminClient, id: string): Promise<boolean> {
  const { data, error, response } = await hub.admin.DELETE("/admin/faults/{id}", { params: { path: { id } } });
  if (response.status === 404) return false;
  if (data === undefined) throw new SvcHubClientError(`DELETE /admin/faults/${id}`, response.status, error);
  return true;
}

/** Removes every fault; answers how many there were. */
export async function clearFaults(hub: AdminClient): Promise<number> {
  const { data, error, response } = await hub.admin.DELETE("/admin/faults");
  if (data === undefined) throw new SvcHubClientError("DELETE /admin/faults", response.status, error);
  return Number(data.removed);
}
