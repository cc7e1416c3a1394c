import { bigint, customType } from "drizzle-orm/pg-core";

/** Epoch milliseconds and sequence numbers: 64-bit in the database, numbers in TypeScript (as the ports carry them). */
export function millis(name: string) {
  return bigint(name, { mode: "number" });
}

/** Bytes (revision bundles) as PostgreSQL's bytea, Buffers in TypeScript. */
export const bytea = customType<{ data: Buffer; driverData: Buffer }>({
  dataType() {
    return "bytea";
  },
});
