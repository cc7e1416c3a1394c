import type { SvcHubClient } from "./index.ts";
import { SvcHubClientError } from "./index.ts";
import type { paths } from "./openapi.types.ts";

/** A fault as POST /admin/faults takes it: `path` and what it does (status, delay, drop, malformed, trickle, ...). */
export type FaultInput = paths["/admin/faults"]["post"]["requestBody"]["content"]["application/json"];
/** A fault as svc-hub shows it: its id and how many more requests it answers. */
export type FaultView = paths["/admin/faults"]["post"]["responses"][201]["content"]["application/json"];

/** Fault injection (POST, GET, DELETE /admin/faults) with the admin token; each call throws SvcHubClientError when refused. */
export interface SvcHubFaults {
  /** Makes the next matching requests fail on purpose; answers the fault with its id. */
  add(fault: FaultInput): Promise<FaultView>;
  /** The faults still waiting for requests, oldest first. */
  list(): Promise<FaultView[]>;
  /** Removes one fault; false when there was none of that id. */
  remove(id: string): Promise<boolean>;
  /** Removes every fault; answers how many there were. */
  clear(): Promise<number>;
}

/** The fault helpers of a client made with an admin token. */
export function faultsOf(hub: Pick<SvcHubClient, "admin">): SvcHubFaults {
  return {
    async add(fault) {
      const { data, error, response } = await hub.admin.POST("/admin/faults", { body: fault });
      if (data === undefined) throw new SvcHubClientError("POST /admin/faults", response.status, error);
      return data;
    },
    async list() {
      const { data, error, response } = await hub.admin.GET("/admin/faults");
      if (data === undefined) throw new SvcHubClientError("GET /admin/faults", response.status, error);
      return data.faults;
    },
    async remove(id) {
      const { data, error, response } = await hub.admin.DELETE("/admin/faults/{id}", { params: { path: { id } } });
      if (response.status === 404) return false;
      if (data === undefined) throw new SvcHubClientError(`DELETE /admin/faults/${id}`, response.status, error);
      return true;
    },
    async clear() {
      const { data, error, response } = await hub.admin.DELETE("/admin/faults");
      if (data === undefined) throw new SvcHubClientError("DELETE /admin/faults", response.status, error);
      return Number(data.removed);
    },
  };
}
