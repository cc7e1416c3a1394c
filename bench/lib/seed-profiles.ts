/**
 * Writes visitor profiles straight into a (stopped) server's libSQL file, the way ProfilesService stores
 * them (adapters/store-libsql/profiles.repo.ts: one visitor_profiles row per group, one visitor_members row
 * per visitor id), in transactions of 10,000 profiles. Visitor `bench-<n>` is its own group.
 */
import { drizzle } from "drizzle-orm/libsql";
import { visitorMembers, visitorProfiles } from "../../adapters/store-libsql/profiles.schema.ts";
import type { VisitorProfile } from "../../core/profiles/index.ts";
import { withDatabase } from "./store-count.ts";

const profilesPerTransaction = 10_000;
/** Rows per INSERT: 5 bound values a row, far below SQLite's limit of 32766. */
const rowsPerStatement = 1000;

export function benchVisitorId(n: number): string {
  return `bench-${n}`;
}

/** A profile of the demo's acme/main, last seen at `lastSeenAt`: what three events (one a purchase) make. */
export function seededProfile(n: number, lastSeenAt: number): VisitorProfile {
  const count = 3 + (n % 5);
  return {
    firstSeenAt: lastSeenAt - 3_600_000,
    lastSeenAt,
    visitStartedAt: lastSeenAt - 600_000,
    eventCount: count,
    visitCount: 1 + (n % 3),
    values: {
      "5201": count,
      "5202": "purchase",
      "5203": true,
      "5204": lastSeenAt - 60_000,
      "5206": `visitor${n}@example.com`,
      "5207": 19.99,
    },
    badges: [5205],
    visitorIds: {},
    lastSeq: 0,
  };
}

/** The enabled-since of an engine, as the server recorded it at its start (DEC-MOM-04). */
export function engineEnabledSince(
  dataDir: string,
  account: string,
  profile: string,
  engineId: string,
): Promise<number | null> {
  return withDatabase(dataDir, async (client) => {
    const result = await client.execute({
      sql: "select enabled_since from engine_states where account = ? and profile = ? and engine_id = ?",
      args: [account, profile, engineId],
    });
    const value = result.rows[0]?.[0];
    return value === undefined || value === null ? null : Number(value);
  });
}

/** Seeds `count` profiles into acme/main; answers the seconds it took. */
export async function seedProfiles(
  dataDir: string,
  count: number,
  lastSeenAt: number,
  progress: (done: number) => void = () => undefined,
): Promise<number> {
  const started = performance.now();
  await withDatabase(dataDir, async (client) => {
    // Seeding is not the service: a crash here only means seeding again, so one sync a transaction is not needed.
    await client.execute("PRAGMA synchronous=OFF");
    const db = drizzle({ client });
    for (let first = 1; first <= count; first += profilesPerTransaction) {
      const last = Math.min(count, first + profilesPerTransaction - 1);
      const statements = [];
      for (let start = first; start <= last; start += rowsPerStatement) {
        const ns = Array.from({ length: Math.min(rowsPerStatement, last - start + 1) }, (_, index) => start + index);
        statements.push(
          db.insert(visitorProfiles).values(
            ns.map((n) => ({
              account: "acme",
              profile: "main",
              canonical: benchVisitorId(n),
              data: seededProfile(n, lastSeenAt),
              lastSeenAt,
            })),
          ),
          db.insert(visitorMembers).values(
            ns.map((n) => ({
              account: "acme",
              profile: "main",
              visitorId: benchVisitorId(n),
              canonical: benchVisitorId(n),
            })),
          ),
        );
      }
      const [head, ...rest] = statements;
      await db.batch([head!, ...rest]);
      progress(last);
    }
    await client.execute("PRAGMA wal_checkpoint(TRUNCATE)");
  });
  return (performance.now() - started) / 1000;
}
