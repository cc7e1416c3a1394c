/**
 * Reads a stopped server's libSQL file directly: how many events it holds, what an engine's enabled-since is.
 * The server has exited before these run, so nothing is in flight.
 */
import { createClient } from "@libsql/client";
import { databaseUrlForDataDir } from "../../adapters/store-libsql/libsql.stores.ts";

export async function withDatabase<T>(
  dataDir: string,
  use: (client: ReturnType<typeof createClient>) => Promise<T>,
): Promise<T> {
  const client = createClient({ url: databaseUrlForDataDir(dataDir) });
  try {
    return await use(client);
  } finally {
    client.close();
  }
}

export function countEvents(dataDir: string): Promise<number> {
  return withDatabase(dataDir, async (client) =>
    Number((await client.execute("select count(*) from events")).rows[0]?.[0] ?? -1),
  );
}
