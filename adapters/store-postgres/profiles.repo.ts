import { and, asc, eq, gt, inArray, or, sql } from "drizzle-orm";
import type { FoundForEngine, MergeRecord, ProfileSave, ProfileStore } from "../../core/ports/index.ts";
import { eraseValueFromProfile, erasureNeedle } from "../../core/privacy/index.ts";
import type { VisitorProfile } from "../../core/profiles/index.ts";
import { chunks } from "../../core/values/index.ts";
import type { PgDatabase } from "./database.ts";
import { engineStates, visitorMembers, visitorMerges, visitorProfiles } from "./profiles.schema.ts";

/**
 * Rows per multi-row statement and ids per IN list: at most 5,000 bound parameters, far below PostgreSQL's
 * 65,535 per statement.
 */
const rowsPerStatement = 1_000;

/** Profiles read at a time by a deletion's search for a value (eraseValue). */
const erasurePageRows = 1_000;

const account = sql.placeholder("account");
const profile = sql.placeholder("profile");
const id = sql.placeholder("id");
const engine = sql.placeholder("engine");

/** A member's group joined to the group's profile: the read of a moments lookup. */
const memberToProfile = and(
  eq(visitorProfiles.account, visitorMembers.account),
  eq(visitorProfiles.profile, visitorMembers.profile),
  eq(visitorProfiles.canonical, visitorMembers.canonical),
);

const memberIsId = and(
  eq(visitorMembers.account, account),
  eq(visitorMembers.profile, profile),
  eq(visitorMembers.visitorId, id),
);

/**
 * The single-row reads (a moments lookup on any node, the profile worker outside a batch), built once
 * (drizzle's prepared queries): building a query costs about as much as running it. Each is one statement,
 * so it sees a save or a join whole (both are one transaction).
 */
function preparedReads(db: PgDatabase) {
  return {
    byMember: db
      .select({ canonical: visitorProfiles.canonical, data: visitorProfiles.data })
      .from(visitorMembers)
      .innerJoin(visitorProfiles, memberToProfile)
      .where(memberIsId)
      .prepare("profiles_by_member"),
    forEngine: db
      .select({ canonical: visitorProfiles.canonical, data: visitorProfiles.data, since: engineStates.enabledSince })
      .from(visitorMembers)
      .innerJoin(visitorProfiles, memberToProfile)
      .leftJoin(
        engineStates,
        and(
          eq(engineStates.account, visitorMembers.account),
          eq(engineStates.profile, visitorMembers.profile),
          eq(engineStates.engineId, engine),
        ),
      )
      .where(memberIsId)
      .prepare("profiles_for_engine"),
    canonicalOf: db
      .select({ canonical: visitorMembers.canonical })
      .from(visitorMembers)
      .where(memberIsId)
      .prepare("profiles_canonical_of"),
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
      .prepare("profiles_find"),
    engineEnabledSince: db
      .select({ since: engineStates.enabledSince })
      .from(engineStates)
      .where(and(eq(engineStates.account, account), eq(engineStates.profile, profile), eq(engineStates.engineId, id)))
      .prepare("profiles_engine_enabled_since"),
  };
}

/**
 * DEC-PRO-03 on PostgreSQL, shared by every node. Only the holder of the profiles lease writes (folds, joins,
 * deletions), but a moments lookup on any node reads: every write that touches more than one row is one
 * transaction, which a reader sees whole or not at all.
 */
export class PgProfileRepo implements ProfileStore {
  private readonly reads: ReturnType<typeof preparedReads>;

  constructor(private readonly db: PgDatabase) {
    this.reads = preparedReads(db);
  }

  async canonicalOf(account: string, profile: string, visitorId: string): Promise<string | null> {
    const [row] = await this.reads.canonicalOf.execute({ account, profile, id: visitorId });
    return row?.canonical ?? null;
  }

  async canonicalsOf(account: string, profile: string, visitorIds: readonly string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    for (const slice of chunks([...new Set(visitorIds)], rowsPerStatement)) {
      const rows = await this.db
        .select({ visitorId: visitorMembers.visitorId, canonical: visitorMembers.canonical })
        .from(visitorMembers)
        .where(
          and(
            eq(visitorMembers.account, account),
            eq(visitorMembers.profile, profile),
            inArray(visitorMembers.visitorId, slice),
          ),
        );
      for (const row of rows) found.set(row.visitorId, row.canonical);
    }
    return found;
  }

  /** Sorted in JavaScript: the contract wants code-unit order, which no collation of the database gives. */
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
    const [row] = await this.reads.find.execute({ account, profile, id: canonical });
    return row?.data ?? null;
  }

  async findByMember(
    account: string,
    profile: string,
    visitorId: string,
  ): Promise<{ canonical: string; data: VisitorProfile } | null> {
    const [row] = await this.reads.byMember.execute({ account, profile, id: visitorId });
    return row ?? null;
  }

  /** MOM-10, DEC-MOM-04: one statement (members, profiles, and the engine's state left-joined). */
  async findForEngine(
    account: string,
    profile: string,
    visitorId: string,
    engineId: string,
  ): Promise<FoundForEngine | null> {
    const [row] = await this.reads.forEngine.execute({ account, profile, id: visitorId, engine: engineId });
    return row ? { canonical: row.canonical, data: row.data, engineEnabledSince: row.since ?? null } : null;
  }

  async findMany(
    account: string,
    profile: string,
    canonicals: readonly string[],
  ): Promise<Map<string, VisitorProfile>> {
    const found = new Map<string, VisitorProfile>();
    for (const slice of chunks([...new Set(canonicals)], rowsPerStatement)) {
      const rows = await this.db
        .select({ canonical: visitorProfiles.canonical, data: visitorProfiles.data })
        .from(visitorProfiles)
        .where(
          and(
            eq(visitorProfiles.account, account),
            eq(visitorProfiles.profile, profile),
            inArray(visitorProfiles.canonical, slice),
          ),
        );
      for (const row of rows) found.set(row.canonical, row.data);
    }
    return found;
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
   * One transaction of a few multi-row upserts (profiles, then members), not two statements per group: a
   * batch of the profile worker costs a handful of statements however many visitors it touches, and a
   * lookup on another node sees the batch whole or not at all. Later entries win, as consecutive `save`s
   * would (and an upsert may not meet the same key twice). Member records are written only for the ids
   * given (and the canonical id unless `canonicalRecorded`): an upsert of an unchanged member costs as much
   * as one that changes it.
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
    if (profiles.size === 0 && members.size === 0) return;
    await this.db.transaction(async (tx) => {
      for (const rows of chunks([...profiles.values()], rowsPerStatement)) {
        await tx
          .insert(visitorProfiles)
          .values(rows)
          .onConflictDoUpdate({
            target: [visitorProfiles.account, visitorProfiles.profile, visitorProfiles.canonical],
            set: { data: sql`excluded.data`, lastSeenAt: sql`excluded.last_seen_at` },
          });
      }
      for (const rows of chunks([...members.values()], rowsPerStatement)) {
        await tx
          .insert(visitorMembers)
          .values(rows)
          .onConflictDoUpdate({
            target: [visitorMembers.account, visitorMembers.profile, visitorMembers.visitorId],
            set: { canonical: sql`excluded.canonical` },
          });
      }
    });
  }

  /** VID-08: one transaction, so a lookup never finds a member moved to a group whose profile is not written yet. */
  async merge(
    account: string,
    profile: string,
    into: string,
    from: readonly string[],
    data: VisitorProfile,
    at: number,
  ): Promise<void> {
    const joined = [...new Set(from.filter((id) => id !== into))];
    await this.db.transaction(async (tx) => {
      if (joined.length > 0) {
        await tx
          .update(visitorMembers)
          .set({ canonical: into })
          .where(
            and(
              eq(visitorMembers.account, account),
              eq(visitorMembers.profile, profile),
              inArray(visitorMembers.canonical, joined),
            ),
          );
        await tx
          .delete(visitorProfiles)
          .where(
            and(
              eq(visitorProfiles.account, account),
              eq(visitorProfiles.profile, profile),
              inArray(visitorProfiles.canonical, joined),
            ),
          );
        // Joins recorded into a group that is now joined itself follow it.
        await tx
          .update(visitorMerges)
          .set({ intoId: into })
          .where(
            and(
              eq(visitorMerges.account, account),
              eq(visitorMerges.profile, profile),
              inArray(visitorMerges.intoId, joined),
            ),
          );
        // One statement: the ids (bigserial) follow `joined`, the order mergesInto answers.
        await tx.insert(visitorMerges).values(joined.map((fromId) => ({ account, profile, fromId, intoId: into, at })));
      }
      await tx
        .insert(visitorMembers)
        .values([into, ...joined].map((visitorId) => ({ account, profile, visitorId, canonical: into })))
        .onConflictDoUpdate({
          target: [visitorMembers.account, visitorMembers.profile, visitorMembers.visitorId],
          set: { canonical: into },
        });
      await tx
        .insert(visitorProfiles)
        .values({ account, profile, canonical: into, data, lastSeenAt: data.lastSeenAt })
        .onConflictDoUpdate({
          target: [visitorProfiles.account, visitorProfiles.profile, visitorProfiles.canonical],
          set: { data, lastSeenAt: data.lastSeenAt },
        });
    });
  }

  async mergesInto(account: string, profile: string, canonical: string): Promise<MergeRecord[]> {
    return this.db
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
  }

  /**
   * PRV-09, DEC-PRV-04: one transaction. PostgreSQL removes the deleted rows' bytes from its files at VACUUM
   * (autovacuum).
   */
  async deleteGroup(account: string, profile: string, canonical: string): Promise<number> {
    const scope = (table: typeof visitorMembers | typeof visitorMerges | typeof visitorProfiles) =>
      and(eq(table.account, account), eq(table.profile, profile));
    return this.db.transaction(async (tx) => {
      const memberIds = tx
        .select({ visitorId: visitorMembers.visitorId })
        .from(visitorMembers)
        .where(and(scope(visitorMembers), eq(visitorMembers.canonical, canonical)));
      await tx
        .delete(visitorMerges)
        .where(
          and(scope(visitorMerges), or(eq(visitorMerges.intoId, canonical), inArray(visitorMerges.fromId, memberIds))),
        );
      await tx.delete(visitorProfiles).where(and(scope(visitorProfiles), eq(visitorProfiles.canonical, canonical)));
      const members = await tx
        .delete(visitorMembers)
        .where(and(scope(visitorMembers), eq(visitorMembers.canonical, canonical)));
      return members.count;
    });
  }

  /**
   * DEC-PRV-05: PostgreSQL finds the profiles whose JSON text may hold the value (strpos on `data::text`: a
   * `json` column keeps the text as written), a page at a time in key order; the rules decide on each, and
   * the rewrites go in the same transaction, one commit for the lot. The pages are read FOR UPDATE, so a
   * rewrite never overwrites a profile changed since it was read (a fold on a node whose lease ran out and
   * was taken over). PostgreSQL removes the old rows' bytes from its files at VACUUM (autovacuum).
   */
  async eraseValue(account: string, profile: string, erased: string): Promise<{ edited: number; groups: string[] }> {
    const scope = and(eq(visitorProfiles.account, account), eq(visitorProfiles.profile, profile));
    // The value as the profile's JSON holds it: once escaped as a text, or twice inside a text attribute that
    // holds an object's or array's JSON (set from a parameter that was one).
    const needle = erasureNeedle(erased);
    const nested = erasureNeedle(needle);
    const holdsNeedle = or(
      sql`strpos(${visitorProfiles.data}::text, ${needle}) > 0`,
      sql`strpos(${visitorProfiles.data}::text, ${nested}) > 0`,
    );
    return this.db.transaction(async (tx) => {
      const groups: string[] = [];
      let edited = 0;
      for (let after: string | null = null; ; ) {
        const page = await tx
          .select({ canonical: visitorProfiles.canonical, data: visitorProfiles.data })
          .from(visitorProfiles)
          .where(and(scope, holdsNeedle, after === null ? undefined : gt(visitorProfiles.canonical, after)))
          .orderBy(asc(visitorProfiles.canonical))
          .limit(erasurePageRows)
          .for("update");
        const rewrites = [];
        for (const row of page) {
          const erasure = eraseValueFromProfile(row.data, erased);
          if (erasure.kind === "remove-group") groups.push(row.canonical);
          if (erasure.kind === "edit") {
            rewrites.push(
              tx
                .update(visitorProfiles)
                .set({ data: erasure.data })
                .where(and(scope, eq(visitorProfiles.canonical, row.canonical))),
            );
          }
        }
        // Sent together, pipelined on the transaction's connection.
        await Promise.all(rewrites);
        edited += rewrites.length;
        const last = page.at(-1);
        if (last === undefined || page.length < erasurePageRows) break;
        after = last.canonical;
      }
      return { edited, groups: groups.sort() };
    });
  }

  async engineEnabledSince(account: string, profile: string, engineId: string): Promise<number | null> {
    const [row] = await this.reads.engineEnabledSince.execute({ account, profile, id: engineId });
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
