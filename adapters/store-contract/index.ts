/**
 * The store contract: one suite per area of the ports (core/ports), each run against every store by that
 * store's own test file, as `describeEveryStoreContract("memory", open)` (drizzle's sqlite-common.ts pattern).
 * A store whose variants differ for one area (libSQL's lookup thread, its :memory: database) runs that area's
 * suite once more per variant. The fixtures the suites make are the core's test support
 * (testing/fixtures.ts), which the tests of the use cases share. The storage of the files received for import
 * has a suite of its own (`describeReceivedFileStorageContract`), run on the data directory and on PostgreSQL.
 */
import type { Stores } from "../../core/ports/index.ts";
import { describeDataLayerStoreContract } from "./datalayer.contract.ts";
import { describeEraseContract } from "./erase.contract.ts";
import { describeEventStoreContract } from "./events.contract.ts";
import { describeFileStatusStoreContract } from "./files.contract.ts";
import { migrationStatements } from "./migrations.ts";
import { describePrivacyStoreContract } from "./privacy.contract.ts";
import { describeProfileStoreContract } from "./profiles.contract.ts";
import { describeRateCountStoreContract } from "./rate-counts.contract.ts";
import { describeReceivedFileStorageContract, type OpenedStorage } from "./received-files.contract.ts";
import { describeRevisionStoreContract } from "./revisions.contract.ts";
import { describeSessionStoreContract } from "./sessions.contract.ts";
import { describeStoreContract } from "./stores.contract.ts";

export {
  describeDataLayerStoreContract,
  describeEraseContract,
  describeEventStoreContract,
  describeFileStatusStoreContract,
  describePrivacyStoreContract,
  describeProfileStoreContract,
  describeRateCountStoreContract,
  describeReceivedFileStorageContract,
  describeRevisionStoreContract,
  describeSessionStoreContract,
  describeStoreContract,
  migrationStatements,
  type OpenedStorage,
};

/** Every suite of the contract, against the stores `open` makes (a fresh, empty one per test). */
export function describeEveryStoreContract(name: string, open: () => Promise<Stores>): void {
  describeStoreContract(name, open);
  describeSessionStoreContract(name, open);
  describeProfileStoreContract(name, open);
  describeDataLayerStoreContract(name, open);
  describeEventStoreContract(name, open);
  describeRevisionStoreContract(name, open);
  describeFileStatusStoreContract(name, open);
  describePrivacyStoreContract(name, open);
  describeRateCountStoreContract(name, open);
  describeEraseContract(name, open);
}
