import { describeStoreContract } from "../store-contract.ts";
import { createMemoryStores } from "./memory.stores.ts";

describeStoreContract("memory", async () => createMemoryStores());
