export * from "./tenancy.schema.ts";
export * from "./profile-config.schema.ts";
export * from "./settings.schema.ts";
export * from "./sessions.schema.ts";
