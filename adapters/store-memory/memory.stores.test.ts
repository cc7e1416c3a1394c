import { describeDataLayerStoreContract } from "../store-contract.datalayer.ts";
import { describeEraseContract } from "../store-contract.erase.ts";
import { describeEventStoreContract } from "../store-contract.events.ts";
import { describeFileStatusStoreContract } from "../store-contract.files.ts";
import { describePrivacyStoreContract } from "../store-contract.privacy.ts";
import { describeProfileStoreContract } from "../store-contract.profiles.ts";
import { describeRevisionStoreContract } from "../store-contract.revisions.ts";
import { describeSessionStoreContract } from "../store-contract.sessions.ts";
import { describeStoreContract } from "../store-contract.ts";
import { createMemoryStores } from "./memory.stores.ts";

describeFileStatusStoreContract("memory", async () => createMemoryStores());

describeStoreContract("memory", async () => createMemoryStores());
describeSessionStoreContract("memory", async () => createMemoryStores());
describeProfileStoreContract("memory", async () => createMemoryStores());
describeDataLayerStoreContract("memory", async () => createMemoryStores());
describeEventStoreContract("memory", async () => createMemoryStores());
describeRevisionStoreContract("memory", async () => createMemoryStores());
describePrivacyStoreContract("memory", async () => createMemoryStores());
describeEraseContract("memory", async () => createMemoryStores());
