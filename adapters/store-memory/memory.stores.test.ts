import { describeStoreContract } from "../store-contract.ts";
import { describeSessionStoreContract } from "../store-contract.sessions.ts";
import { createMemoryStores } from "./memory.stores.ts";

describeStoreContract("memory", async () => createMemoryStores());
describeSessionStoreContract("memory", async () => createMemoryStores());
