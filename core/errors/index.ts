export * from "./collect.errors.ts";
export * from "./file-failure.messages.ts";
export * from "./file-import.errors.ts";
export * from "./management.errors.ts";
export * from "./moments.errors.ts";
export * from "./template.ts";
