/**
 * Fault injection's helpers (issue 43): make the next matching requests fail on purpose, list, remove and clear
 * the faults (POST, GET, DELETE /admin/faults). Each throws SvcHubClientError when svc-hub refuses the call.
 *
 *   await addFault(hub, { path: "/event", status: 503, probability: 0.5, seed: 7, times: 100 });
 */
import { type AdminClient, answered } from "./admin-call.ts";
import type { paths } from "./openapi.types.ts";

/** A fault as POST /admin/faults takes it: `path` and what it does (status, delay, drop, malformed, trickle, ...). */
export type FaultInput = paths["/admin/faults"]["post"]["requestBody"]["content"]["application/json"];
/** A fault as svc-hub shows it: its id and how many more requests it answers. */
export type FaultView = paths["/admin/faults"]["post"]["responses"][201]["content"]["application/json"];

/** Makes the next matching requests fail on purpose; answers the fault with its id. */
export async function addFault(hub: AdminClient, fault: FaultInput): Promise<FaultView> {
  return answered("POST /admin/faults", await hub.admin.POST("/admin/faults", { body: fault }));
}

/** The faults still waiting for requests, oldest first. */
export async function listFaults(hub: AdminClient): Promise<FaultView[]> {
  const data = answered("GET /admin/faults", await hub.admin.GET("/admin/faults"));
  return data.faults;
}

/** Removes one fault; false when there was none of that id. */
export async function removeFault(hub: AdminClient, id: string): Promise<boolean> {
  const result = await hub.admin.DELETE("/admin/faults/{id}", { params: { path: { id } } });
  if (result.response.status === 404) return false;
  answered(`DELETE /admin/faults/${id}`, result);
  return true;
}

/** Removes every fault; answers how many there were. */
export async function clearFaults(hub: AdminClient): Promise<number> {
  const data = answered("DELETE /admin/faults", await hub.admin.DELETE("/admin/faults"));
  return Number(data.removed);
}
