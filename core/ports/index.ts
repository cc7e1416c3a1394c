export type * from "./clock.port.ts";
export type * from "./ids.port.ts";
export type * from "./hashing.port.ts";
export type * from "./tenancy.store.ts";
export type * from "./settings.store.ts";
export type * from "./sessions.store.ts";
export type * from "./stores.ts";
