import { and, asc, eq, gt, inArray, or, type Placeholder, sql } from "drizzle-orm";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import type { FoundForEngine, MergeRecord, ProfileSave, ProfileStore } from "../../core/ports/index.ts";
import { eraseValueFromProfile, erasureNeedle } from "../../core/privacy/index.ts";
import type { VisitorProfile } from "../../core/profiles/index.ts";
import { nextEventLoopTurn } from "../runtime/event-loop.ts";
import type { RowSource } from "../threads/lookup-host.ts";
import { engineStates, visitorMembers, visitorMerges, visitorProfiles } from "./profiles.schema.ts";
import { type ClientDatabase, chunks, rowStatements } from "./row-statements.ts";
import { type ReaderQuery, readerQuery, type StatementReader } from "./statement-reader.ts";

/** Rows per multi-row statement: well under SQLite's limit of bound parameters per statement. */
const rowsPerStatement = 200;

/**
 * The sizes a batch's IN list is padded to on the statement reader (repeating its last id), so that a few
 * statements, kept prepared, serve every batch.
 */
const inListSizes = [8, 32, 96, rowsPerStatement] as const;

/** The two batch reads of the profile worker: a batch's members' groups, and those groups' profiles. */
type BatchTable = "members" | "profiles";

const account = sql.placeholder("account");
const profile = sql.placeholder("profile");
const id = sql.placeholder("id");
const engine = sql.placeholder("engine");

/**
 * The single-row reads (a moments lookup, the profile worker outside a batch), built once (drizzle's
 * prepared queries): building a query costs about as much as running it.
 */
function preparedReads(db: LibSQLDatabase) {
  return {
    byMember: db
      .select({ canonical: visitorProfiles.canonical, data: visitorProfiles.data })
      .from(visitorMembers)
      .innerJoin(
        visitorProfiles,
        and(
          eq(visitorProfiles.account, visitorMembers.account),
          eq(visitorProfiles.profile, visitorMembers.profile),
          eq(visitorProfiles.canonical, visitorMembers.canonical),
        ),
      )
      .where(
        and(eq(visitorMembers.account, account), eq(visitorMembers.profile, profile), eq(visitorMembers.visitorId, id)),
      )
      .prepare(),
    forEngine: db
      .select({ canonical: visitorProfiles.canonical, data: visitorProfiles.data, since: engineStates.enabledSince })
      .from(visitorMembers)
      .innerJoin(
        visitorProfiles,
        and(
          eq(visitorProfiles.account, visitorMembers.account),
          eq(visitorProfiles.profile, visitorMembers.profile),
          eq(visitorProfiles.canonical, visitorMembers.canonical),
        ),
      )
      .leftJoin(
        engineStates,
        and(
          eq(engineStates.account, visitorMembers.account),
          eq(engineStates.profile, visitorMembers.profile),
          eq(engineStates.engineId, engine),
        ),
      )
      .where(
        and(eq(visitorMembers.account, account), eq(visitorMembers.profile, profile), eq(visitorMembers.visitorId, id)),
      )
      .prepare(),
    canonicalOf: db
      .select({ canonical: visitorMembers.canonical })
      .from(visitorMembers)
      .where(
        and(eq(visitorMembers.account, account), eq(visitorMembers.profile, profile), eq(visitorMembers.visitorId, id)),
      )
      .prepare(),
    find: db
      .select({ data: visitorProfiles.data })
      .from(visitorProfiles)
      .where(
        and(
          eq(visitorProfiles.account, account),
          eq(visitorProfiles.profile, profile),
          eq(visitorProfiles.canonical, id),
        ),
      )
      .prepare(),
    engineEnabledSince: db
      .select({ since: engineStates.enabledSince })
      .from(engineStates)
      .where(and(eq(engineStates.account, account), eq(engineStates.profile, profile), eq(engineStates.engineId, id)))
      .prepare(),
  };
}

export class LibsqlProfileRepo implements ProfileStore {
  private readonly reads: ReturnType<typeof preparedReads>;
  /** The multi-row upserts of saveMany, their text built once per row count. */
  private readonly upsertProfiles;
  private readonly upsertMembers;

  /** The single-row reads on the statement reader or the lookup thread (a `file:` database). */
  private readonly fast: { byMember: ReaderQuery; forEngine: ReaderQuery; engineEnabledSince: ReaderQuery } | null;

  /** The batch reads of the profile worker on the statement reader, one statement per IN-list size. */
  private readonly batchReads = new Map<string, ReaderQuery>();

  constructor(
    private readonly db: ClientDatabase,
    /** Where the moments lookup's reads run: the statement reader, or the lookup thread. */
    private readonly reader: RowSource | null = null,
    /** The statement reader of this thread (a `file:` database), for the profile worker's batch reads. */
    private readonly batchReader: StatementReader | null = null,
  ) {
    this.reads = preparedReads(db);
    const { byMember, forEngine, engineEnabledSince } = this.reads;
    this.fast = reader
      ? {
          byMember: readerQuery(byMember.getQuery()),
          forEngine: readerQuery(forEngine.getQuery()),
          engineEnabledSince: readerQuery(engineEnabledSince.getQuery()),
        }
      : null;
    this.upsertProfiles = rowStatements<typeof visitorProfiles.$inferInsert>(
      ["account", "profile", "canonical", "data", "lastSeenAt"],
      (rows) =>
        db
          .insert(visitorProfiles)
          .values(rows)
          .onConflictDoUpdate({
            target: [visitorProfiles.account, visitorProfiles.profile, visitorProfiles.canonical],
            set: { data: sql`excluded.data`, lastSeenAt: sql`excluded.last_seen_at` },
          }),
    );
    this.upsertMembers = rowStatements<typeof visitorMembers.$inferInsert>(
      ["account", "profile", "visitorId", "canonical"],
      (rows) =>
        db
          .insert(visitorMembers)
          .values(rows)
          .onConflictDoUpdate({
            target: [visitorMembers.account, visitorMembers.profile, visitorMembers.visitorId],
            set: { canonical: sql`excluded.canonical` },
          }),
    );
  }

  async canonicalOf(account: string, profile: string, visitorId: string): Promise<string | null> {
    const row = await this.reads.canonicalOf.get({ account, profile, id: visitorId });
    return row?.canonical ?? null;
  }

  async canonicalsOf(account: string, profile: string, visitorIds: readonly string[]): Promise<Map<string, string>> {
    return new Map((await this.readIn("members", account, profile, visitorIds)) as Array<[string, string]>);
  }

  /**
   * The profile worker's batch reads: members as [visitorId, canonical], profiles as [canonical, profile], of
   * the distinct `ids`. On the statement reader, IN lists are padded to one of `inListSizes` (repeating the
   * last id), so a few statements stay prepared; without one, through the client.
   */
  private async readIn(
    table: BatchTable,
    account: string,
    profile: string,
    ids: readonly string[],
  ): Promise<Array<[string, unknown]>> {
    const rows: Array<[string, unknown]> = [];
    for (const slice of chunks([...new Set(ids)], rowsPerStatement)) {
      if (!this.batchReader) {
        for (const { key, value } of await this.selectIn(table, account, profile, slice)) rows.push([key, value]);
        continue;
      }
      const size = inListSizes.find((candidate) => candidate >= slice.length) ?? rowsPerStatement;
      const values: Record<string, unknown> = { account, profile };
      for (let index = 0; index < size; index += 1) values[`id${index}`] = slice[Math.min(index, slice.length - 1)];
      for (const [key, value] of this.batchReader.rows(this.batchRead(table, size), values)) {
        // The statement reader answers a JSON column as its text; drizzle parses it.
        rows.push([key as string, table === "profiles" ? JSON.parse(value as string) : value]);
      }
    }
    return rows;
  }

  /** The batch read of `table` for `ids` (values, or placeholders for the statement reader). */
  private selectIn(
    table: BatchTable,
    accountValue: string | Placeholder,
    profileValue: string | Placeholder,
    ids: ReadonlyArray<string | Placeholder>,
  ) {
    return table === "members"
      ? this.db
          .select({ key: visitorMembers.visitorId, value: visitorMembers.canonical })
          .from(visitorMembers)
          .where(
            and(
              eq(visitorMembers.account, accountValue),
              eq(visitorMembers.profile, profileValue),
              inArray(visitorMembers.visitorId, [...ids]),
            ),
          )
      : this.db
          .select({ key: visitorProfiles.canonical, value: visitorProfiles.data })
          .from(visitorProfiles)
          .where(
            and(
              eq(visitorProfiles.account, accountValue),
              eq(visitorProfiles.profile, profileValue),
              inArray(visitorProfiles.canonical, [...ids]),
            ),
          );
  }

  /** The statement reader's text of the batch read of `size` ids, built once per table and size. */
  private batchRead(table: BatchTable, size: number): ReaderQuery {
    const key = `${table}:${size}`;
    let query = this.batchReads.get(key);
    if (!query) {
      query = readerQuery(
        this.selectIn(
          table,
          account,
          profile,
          Array.from({ length: size }, (_, index) => sql.placeholder(`id${index}`)),
        ).toSQL(),
      );
      this.batchReads.set(key, query);
    }
    return query;
  }

  async membersOf(account: string, profile: string, canonical: string): Promise<string[]> {
    const rows = await this.db
      .select({ visitorId: visitorMembers.visitorId })
      .from(visitorMembers)
      .where(
        and(
          eq(visitorMembers.account, account),
          eq(visitorMembers.profile, profile),
          eq(visitorMembers.canonical, canonical),
        ),
      );
    return rows.map((row) => row.visitorId).sort();
  }

  async find(account: string, profile: string, canonical: string): Promise<VisitorProfile | null> {
    const row = await this.reads.find.get({ account, profile, id: canonical });
    return row?.data ?? null;
  }

  async findByMember(
    account: string,
    profile: string,
    visitorId: string,
  ): Promise<{ canonical: string; data: VisitorProfile } | null> {
    if (this.reader && this.fast) {
      const row = await this.reader.row(this.fast.byMember, { account, profile, id: visitorId });
      return row ? { canonical: row[0] as string, data: JSON.parse(row[1] as string) as VisitorProfile } : null;
    }
    return (await this.reads.byMember.get({ account, profile, id: visitorId })) ?? null;
  }

  async findForEngine(
    account: string,
    profile: string,
    visitorId: string,
    engineId: string,
  ): Promise<FoundForEngine | null> {
    if (this.reader && this.fast) {
      const row = await this.reader.row(this.fast.forEngine, { account, profile, id: visitorId, engine: engineId });
      return row
        ? {
            canonical: row[0] as string,
            data: JSON.parse(row[1] as string) as VisitorProfile,
            engineEnabledSince: (row[2] as number | null) ?? null,
          }
        : null;
    }
    const row = await this.reads.forEngine.get({ account, profile, id: visitorId, engine: engineId });
    return row ? { canonical: row.canonical, data: row.data, engineEnabledSince: row.since ?? null } : null;
  }

  async findMany(
    account: string,
    profile: string,
    canonicals: readonly string[],
  ): Promise<Map<string, VisitorProfile>> {
    return new Map((await this.readIn("profiles", account, profile, canonicals)) as Array<[string, VisitorProfile]>);
  }

  async save(
    account: string,
    profile: string,
    canonical: string,
    data: VisitorProfile,
    members: readonly string[],
  ): Promise<void> {
    await this.saveMany([{ account, profile, canonical, data, members }]);
  }

  /**
   * One commit of a few multi-row upserts (profiles, then members), not two statements per group: a batch of
   * the profile worker costs a handful of statements however many visitors it touches. Later entries win,
   * as consecutive `save`s would. Member records are written only for the ids given (and the canonical id
   * unless `canonicalRecorded`): an upsert of an unchanged member costs as much as one that changes it.
   */
  async saveMany(entries: readonly ProfileSave[]): Promise<void> {
    const profiles = new Map<string, typeof visitorProfiles.$inferInsert>();
    const members = new Map<string, typeof visitorMembers.$inferInsert>();
    for (const { account, profile, canonical, data, members: ids, canonicalRecorded } of entries) {
      profiles.set(JSON.stringify([account, profile, canonical]), {
        account,
        profile,
        canonical,
        data,
        lastSeenAt: data.lastSeenAt,
      });
      for (const visitorId of canonicalRecorded ? ids : [canonical, ...ids])
        members.set(JSON.stringify([account, profile, visitorId]), { account, profile, visitorId, canonical });
    }
    const statements = [
      ...chunks([...profiles.values()], rowsPerStatement).map(this.upsertProfiles),
      ...chunks([...members.values()], rowsPerStatement).map(this.upsertMembers),
    ];
    if (statements.length > 0) await this.db.$client.batch(statements, "write");
  }

  async merge(
    account: string,
    profile: string,
    into: string,
    from: readonly string[],
    data: VisitorProfile,
    at: number,
  ): Promise<void> {
    const joined = [...new Set(from.filter((id) => id !== into))];
    const scope = and(eq(visitorMembers.account, account), eq(visitorMembers.profile, profile));
    const statements = [
      this.db
        .update(visitorMembers)
        .set({ canonical: into })
        .where(and(scope, inArray(visitorMembers.canonical, joined.length ? joined : [""]))),
      this.db
        .insert(visitorMembers)
        .values([into, ...joined].map((visitorId) => ({ account, profile, visitorId, canonical: into })))
        .onConflictDoUpdate({
          target: [visitorMembers.account, visitorMembers.profile, visitorMembers.visitorId],
          set: { canonical: into },
        }),
      this.db
        .delete(visitorProfiles)
        .where(
          and(
            eq(visitorProfiles.account, account),
            eq(visitorProfiles.profile, profile),
            inArray(visitorProfiles.canonical, joined.length ? joined : [""]),
          ),
        ),
      this.db
        .insert(visitorProfiles)
        .values({ account, profile, canonical: into, data, lastSeenAt: data.lastSeenAt })
        .onConflictDoUpdate({
          target: [visitorProfiles.account, visitorProfiles.profile, visitorProfiles.canonical],
          set: { data, lastSeenAt: data.lastSeenAt },
        }),
      this.db
        .update(visitorMerges)
        .set({ intoId: into })
        .where(
          and(
            eq(visitorMerges.account, account),
            eq(visitorMerges.profile, profile),
            inArray(visitorMerges.intoId, joined.length ? joined : [""]),
          ),
        ),
    ] as const;
    const records = joined.map((fromId) =>
      this.db.insert(visitorMerges).values({ account, profile, fromId, intoId: into, at }),
    );
    await this.db.batch([...statements, ...records]);
  }

  async mergesInto(account: string, profile: string, canonical: string): Promise<MergeRecord[]> {
    const rows = await this.db
      .select({ from: visitorMerges.fromId, into: visitorMerges.intoId, at: visitorMerges.at })
      .from(visitorMerges)
      .where(
        and(
          eq(visitorMerges.account, account),
          eq(visitorMerges.profile, profile),
          eq(visitorMerges.intoId, canonical),
        ),
      )
      .orderBy(asc(visitorMerges.id));
    return rows;
  }

  /** PRV-09, DEC-PRV-04: one `db.batch`; secure_delete is asserted in it (it is per connection), so the bytes are zeroed. */
  async deleteGroup(account: string, profile: string, canonical: string): Promise<number> {
    const scope = (table: typeof visitorMembers | typeof visitorMerges | typeof visitorProfiles) =>
      and(eq(table.account, account), eq(table.profile, profile));
    const memberIds = this.db
      .select({ visitorId: visitorMembers.visitorId })
      .from(visitorMembers)
      .where(and(scope(visitorMembers), eq(visitorMembers.canonical, canonical)));
    const [, , , members] = await this.db.batch([
      this.db.run(sql`PRAGMA secure_delete = ON`),
      this.db
        .delete(visitorMerges)
        .where(
          and(scope(visitorMerges), or(eq(visitorMerges.intoId, canonical), inArray(visitorMerges.fromId, memberIds))),
        ),
      this.db.delete(visitorProfiles).where(and(scope(visitorProfiles), eq(visitorProfiles.canonical, canonical))),
      this.db.delete(visitorMembers).where(and(scope(visitorMembers), eq(visitorMembers.canonical, canonical))),
    ]);
    return members.rowsAffected;
  }

  /**
   * DEC-PRV-05: the profiles whose JSON may hold the value are found by SQLite (instr), the rules decide on
   * each, and the rewrites go in one `db.batch` with secure_delete on (the old bytes are zeroed).
   */
  async eraseValue(account: string, profile: string, erased: string): Promise<{ edited: number; groups: string[] }> {
    const scope = and(eq(visitorProfiles.account, account), eq(visitorProfiles.profile, profile));
    // The value as the profile's JSON holds it: once escaped as a text, or twice inside a text attribute that
    // holds an object's or array's JSON (set from a parameter that was one).
    const needle = erasureNeedle(erased);
    const nested = erasureNeedle(needle);
    const groups: string[] = [];
    let edited = 0;
    // A page of profiles at a time in key order, their JSON as text, parsed only where it holds the value: a
    // short value is in nearly every profile, and all of them at once would be held in memory and read in one
    // statement while nothing else runs.
    for (let after = ""; ; ) {
      const page = await this.db
        .select({ canonical: visitorProfiles.canonical, text: sql<string>`${visitorProfiles.data}` })
        .from(visitorProfiles)
        .where(and(scope, gt(visitorProfiles.canonical, after)))
        .orderBy(asc(visitorProfiles.canonical))
        .limit(erasurePageRows);
      const rewrites = [];
      for (const row of page) {
        if (!row.text.includes(needle) && !row.text.includes(nested)) continue;
        const erasure = eraseValueFromProfile(JSON.parse(row.text) as VisitorProfile, erased);
        if (erasure.kind === "remove-group") groups.push(row.canonical);
        if (erasure.kind === "edit") {
          rewrites.push(
            this.db
              .update(visitorProfiles)
              .set({ data: erasure.data })
              .where(and(scope, eq(visitorProfiles.canonical, row.canonical))),
          );
        }
      }
      if (rewrites.length > 0) await this.db.batch([this.db.run(sql`PRAGMA secure_delete = ON`), ...rewrites]);
      edited += rewrites.length;
      const last = page.at(-1);
      if (last === undefined || page.length < erasurePageRows) break;
      after = last.canonical;
      await nextEventLoopTurn();
    }
    return { edited, groups: groups.sort() };
  }

  /**
   * Read when the configuration is applied (at start, and by a reset), never by a lookup: on this thread's
   * statement reader where there is one, so that applying the configuration does not start the lookup thread.
   */
  async engineEnabledSince(account: string, profile: string, engineId: string): Promise<number | null> {
    const source = this.batchReader ?? this.reader;
    if (source && this.fast) {
      const row = await source.row(this.fast.engineEnabledSince, { account, profile, id: engineId });
      return (row?.[0] as number | null | undefined) ?? null;
    }
    const row = await this.reads.engineEnabledSince.get({ account, profile, id: engineId });
    return row?.since ?? null;
  }

  async setEngineEnabledSince(account: string, profile: string, engineId: string, since: number | null): Promise<void> {
    await this.db
      .insert(engineStates)
      .values({ account, profile, engineId, enabledSince: since })
      .onConflictDoUpdate({
        target: [engineStates.account, engineStates.profile, engineStates.engineId],
        set: { enabledSince: since },
      });
  }
}

/** Profiles read at a time by a deletion's search for a value (eraseValue). */
const erasurePageRows = 1_000;
