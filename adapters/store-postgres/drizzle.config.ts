import { defineConfig } from "drizzle-kit";

/**
 * drizzle-kit generates the PostgreSQL store's SQL migrations from its schema (`npm run db:generate:postgres`,
 * from the repository root); the store applies them itself when a node opens it, under an advisory lock.
 */
export default defineConfig({
  dialect: "postgresql",
  schema: "./adapters/store-postgres/schema.ts",
  out: "./adapters/store-postgres/migrations",
  strict: true,
  verbose: true,
});
