export * from "./tenancy.schema.ts";
export * from "./profile-config.schema.ts";
export * from "./settings.schema.ts";
export * from "./sessions.schema.ts";
export * from "./events.schema.ts";
export * from "./datalayer.schema.ts";
export * from "./revisions.schema.ts";
export * from "./profiles.schema.ts";
