import { defineConfig } from "drizzle-kit";

/**
 * drizzle-kit generates the SQL migrations from the schema (`npm run db:generate`, from the repository
 * root, where these paths are resolved); the service applies them itself when it opens the store.
 * "turso" is drizzle-kit's dialect for libSQL.
 */
export default defineConfig({
  dialect: "turso",
  schema: "./adapters/store-libsql/schema.ts",
  out: "./adapters/store-libsql/migrations",
  strict: true,
  verbose: true,
});
