import { describeEveryStoreContract } from "../store-contract/index.ts";
import { createMemoryStores } from "./memory.stores.ts";

describeEveryStoreContract("memory", async () => createMemoryStores());
