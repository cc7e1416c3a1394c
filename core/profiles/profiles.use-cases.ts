import type { ProfileConfig, ServiceConfig } from "../config/config.model.ts";
import type { EventLoop } from "../ports/event-loop.port.ts";
import type { EventStore, StoredEvent } from "../ports/events.store.ts";
import type { ProfileStore } from "../ports/profiles.store.ts";
import type { Stores } from "../ports/stores.ts";
import { chunks } from "../values/chunks.ts";
import { matchKnownVisitorId } from "../visitors/visitor-id.rules.ts";
import { BufferedProfileStore } from "./buffered-profiles.ts";
import { applyEvent, type ProfileEvent, type ProfilePolicy, type VisitorProfile } from "./profile.rules.ts";
import { chooseCanonical, type GroupSummary, identitiesOfEvent, isKnownVisitorKey } from "./stitching.rules.ts";

/**
 * What the engine reads of a stored event: its parameters (everything stored, with svc_event) in an object
 * without a prototype, so that a parameter named `constructor` or `toString` is one only when stored; and
 * the visitor ID attribute its visitor ID names when that is a known visitor ID of the event's own
 * account/profile (DEC-COL-11: it sets that attribute).
 */
export function profileEventOf(event: StoredEvent): ProfileEvent {
  const params: Record<string, unknown> = Object.assign(Object.create(null) as Record<string, unknown>, event.data);
  if (event.event !== null) params.svc_event = event.event;
  return {
    at: event.receivedAt,
    seq: event.seq,
    params,
    knownVisitor: matchKnownVisitorId(event.visitorId, event.account, event.profile),
  };
}

const defaultPageSize = 1000;
/** Members named by one query of a join's fold (at most maxVisitorIdsPerQuery). */
const membersPerQuery = 100;
/** How long a batch works before it gives the thread back (to the group commits of collected events). */
const sliceMs = 5;

interface EventReading {
  readonly input: ProfileEvent;
  readonly identities: ReturnType<typeof identitiesOfEvent>;
  readonly involved: readonly string[];
}

/** A batch stopped at the event with index `applied` (the ones before it are written). */
export class ProfileBatchError extends Error {
  override readonly name = "ProfileBatchError";
  constructor(
    readonly applied: number,
    cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
  }
}

/**
 * A batch stopped because its worker no longer holds the profiles lease: another process applies these
 * events now, so nothing more of this batch is written.
 */
export class ProfileLeaseLost extends Error {
  override readonly name = "ProfileLeaseLost";
  constructor() {
    super("the profiles lease passed to another process during a batch");
  }
}

/**
 * DEC-PRO-03, VID-08, DEC-COL-11: applies stored events to visitor profiles, one at a time in sequence
 * order, joining groups when an event names an identity another group has. Applying an event twice changes
 * nothing (a profile remembers the last sequence number it includes), so a crash between a profile write
 * and the cursor write loses nothing and counts nothing twice.
 */
export class ProfilesService {
  private readonly pageSize: number;
  private readonly pause: () => Promise<void>;

  constructor(
    private readonly deps: {
      stores: Stores;
      policy: ProfilePolicy;
      /** The host's event loop: how long a slice of work has run, and the turn it gives the thread back with. */
      eventLoop: EventLoop;
      pageSize?: number;
      /**
       * Awaited between the steps of a batch (its reads, its work, its commit). The batch runs on the thread
       * that commits collected events; without a pause, a group of events waits for the whole batch (8 ms and
       * more under load, bench/FINDINGS.md). Default: the next turn of the event loop.
       */
      pause?: () => Promise<void>;
      /** For tests: how long work runs before it gives the thread back (default sliceMs). */
      sliceMs?: number;
    },
  ) {
    this.pageSize = deps.pageSize ?? defaultPageSize;
    this.pause = deps.pause ?? (() => deps.eventLoop.nextTurn());
  }

  async apply(event: StoredEvent, config: ProfileConfig): Promise<void> {
    await this.applyWith(this.deps.stores.profiles, event, config, this.slicer());
  }

  /**
   * What long work awaits between its small steps: once it has run for sliceMs, the thread is given back
   * (the pause) and, when the work holds a lease, the lease is renewed; a lease lost stops the work.
   */
  private slicer(stillHeld?: () => Promise<boolean>): () => Promise<void> {
    const { eventLoop } = this.deps;
    let since = eventLoop.monotonicMs();
    return async () => {
      if (eventLoop.monotonicMs() - since < (this.deps.sliceMs ?? sliceMs)) return;
      await eventLoop.nextTurn();
      if (stillHeld && !(await stillHeld())) throw new ProfileLeaseLost();
      since = eventLoop.monotonicMs();
    };
  }

  /**
   * Applies a batch of events in order, writing their profiles to the store in one commit at the end (a join
   * commits on its own). Answers how many events were applied; when one fails, the ones before it are still
   * written and the error says which event to start again from.
   */
  async applyBatch(
    events: readonly StoredEvent[],
    configOf: (event: StoredEvent) => Promise<ProfileConfig | null>,
    options: {
      /**
       * Renews the worker's lease and says whether it still holds it: asked between slices of the work and
       * before the commit. Without it a batch longer than the lease (joins into a large group) went on
       * writing after another process had taken over the same events.
       */
      readonly stillHeld?: () => Promise<boolean>;
    } = {},
  ): Promise<{ applied: number }> {
    const buffered = new BufferedProfileStore(this.deps.stores.profiles);
    const slice = this.slicer(options.stillHeld);
    let applied = 0;
    try {
      // Each event's configuration and the ids it touches, worked out once; those ids are read together (per
      // account and profile) before any event is applied.
      const work: Array<{ event: StoredEvent; config: ProfileConfig; reading: EventReading } | null> = [];
      const idsByScope = new Map<string, { account: string; profile: string; ids: string[] }>();
      for (const event of events) {
        const config = await configOf(event);
        if (!config) {
          work.push(null);
          continue;
        }
        const reading = this.readEvent(event, config);
        work.push({ event, config, reading });
        const key = `${event.account}\u0000${event.profile}`;
        const scope = idsByScope.get(key) ?? { account: event.account, profile: event.profile, ids: [] };
        scope.ids.push(...reading.involved);
        idsByScope.set(key, scope);
      }
      await this.pause();
      for (const { account, profile, ids } of idsByScope.values()) await buffered.prefetch(account, profile, ids);
      await this.pause();
      for (const item of work) {
        await slice();
        if (item) await this.applyWith(buffered, item.event, item.config, slice, item.reading);
        applied += 1;
      }
    } catch (error) {
      if (error instanceof ProfileLeaseLost) throw error;
      await buffered.flush();
      throw new ProfileBatchError(applied, error);
    }
    await this.pause();
    if (options.stillHeld && !(await options.stillHeld())) throw new ProfileLeaseLost();
    await buffered.flush();
    return { applied };
  }

  /** The engine's input of an event, the known identities it names, and the ids whose groups it touches. */
  private readEvent(event: StoredEvent, config: ProfileConfig): EventReading {
    const input = profileEventOf(event);
    const identities = identitiesOfEvent(
      { visitorId: event.visitorId, params: input.params },
      event.account,
      event.profile,
      config,
    );
    return {
      input,
      identities,
      involved: [...new Set([event.visitorId, ...identities.map((identity) => identity.key)])],
    };
  }

  private async applyWith(
    profiles: ProfileStore,
    event: StoredEvent,
    config: ProfileConfig,
    slice: () => Promise<void>,
    reading = this.readEvent(event, config),
  ): Promise<void> {
    const { account, profile } = event;
    const { input, identities, involved } = reading;
    const groups = [
      ...new Set(
        (await Promise.all(involved.map((id) => profiles.canonicalOf(account, profile, id)))).filter(
          (id): id is string => id !== null,
        ),
      ),
    ];

    if (groups.length === 0) {
      const canonical = identities[0]?.key ?? event.visitorId;
      await profiles.save(account, profile, canonical, applyEvent(null, input, config, this.deps.policy), involved);
      return;
    }

    const summaries: GroupSummary[] = [];
    const current = new Map<string, VisitorProfile | null>();
    for (const canonical of groups) {
      const found = await profiles.find(account, profile, canonical);
      current.set(canonical, found);
      summaries.push({
        canonical,
        known: isKnownVisitorKey(canonical, account, profile),
        firstSeenAt: found?.firstSeenAt ?? input.at,
      });
    }
    // A known identity that has no group yet is a candidate too: an anonymous group that names it becomes it.
    for (const identity of identities) {
      if (!(await profiles.canonicalOf(account, profile, identity.key)))
        summaries.push({ canonical: identity.key, known: true, firstSeenAt: input.at });
    }
    const into = summaries.reduce((best, next) => ({
      canonical: chooseCanonical(best, next),
      known: best.known || next.known,
      firstSeenAt: Math.min(best.firstSeenAt, next.firstSeenAt),
    })).canonical;

    if (groups.length === 1 && into === groups[0]) {
      const existing = current.get(into) ?? null;
      const next =
        existing && existing.lastSeq >= event.seq ? existing : applyEvent(existing, input, config, this.deps.policy);
      await profiles.save(account, profile, into, next, involved);
      return;
    }

    // A join: the joined profile is the fold of every member's events up to this one, in order.
    const members = new Set<string>(involved);
    for (const canonical of groups)
      for (const member of await profiles.membersOf(account, profile, canonical)) members.add(member);
    const joined = await this.foldMembers(account, profile, [...members], event.seq, config, slice);
    if (!joined) return;
    await profiles.merge(account, profile, into, groups, joined, input.at);
    await profiles.save(account, profile, into, joined, involved);
  }

  private foldMembers(
    account: string,
    profile: string,
    visitorIds: readonly string[],
    upToSeq: number,
    config: ProfileConfig,
    slice: () => Promise<void>,
  ): Promise<VisitorProfile | null> {
    return foldVisitorEvents(
      this.deps.stores.events,
      { account, profile, visitorIds, upToSeq },
      config,
      this.deps.policy,
      {
        pageSize: this.pageSize,
        slice,
      },
    );
  }
}

/**
 * DEC-PRO-03, VID-08: the profile of visitors' events up to `upToSeq` (stitched visitors: a group's members),
 * folded in sequence order while reading them page by page: a merge of one ascending stream per chunk of
 * members (a query names up to membersPerQuery of them, so a group of a thousand visitors is a few queries a
 * page, not a thousand), so memory stays at a page per chunk however many events the visitors have. `slice` is
 * awaited before each page (the worker gives the thread back there). Null when they have no event.
 */
export async function foldVisitorEvents(
  events: Pick<EventStore, "query">,
  group: {
    readonly account: string;
    readonly profile: string;
    readonly visitorIds: readonly string[];
    readonly upToSeq: number;
  },
  config: ProfileConfig,
  policy: ProfilePolicy,
  options: { readonly pageSize?: number; readonly slice?: () => Promise<void> } = {},
): Promise<VisitorProfile | null> {
  const pageSize = options.pageSize ?? defaultPageSize;
  const streams = chunks(group.visitorIds, membersPerQuery).map((members) => ({
    members,
    page: [] as StoredEvent[],
    index: 0,
    afterSeq: 0,
    exhausted: false,
  }));
  let folded: VisitorProfile | null = null;
  for (;;) {
    for (const stream of streams) {
      if (stream.index < stream.page.length || stream.exhausted) continue;
      await options.slice?.();
      stream.page = await events.query({
        account: group.account,
        profile: group.profile,
        visitorIds: stream.members,
        afterSeq: stream.afterSeq,
        beforeSeq: group.upToSeq + 1,
        limit: pageSize,
        order: "asc",
      });
      stream.index = 0;
      stream.exhausted = stream.page.length < pageSize;
      if (stream.page.length > 0) stream.afterSeq = (stream.page.at(-1) as StoredEvent).seq;
    }
    let next: (typeof streams)[number] | null = null;
    for (const stream of streams) {
      const head = stream.page[stream.index];
      if (head && (!next || head.seq < (next.page[next.index] as StoredEvent).seq)) next = stream;
    }
    if (!next) return folded;
    folded = applyEvent(folded, profileEventOf(next.page[next.index] as StoredEvent), config, policy);
    next.index += 1;
  }
}

/**
 * DEC-MOM-04: records since when each configured engine has been enabled (set when it becomes enabled,
 * cleared when it is disabled), so that moments answer only for visitors with events after that.
 */
export async function syncEngineStates(stores: Stores, config: ServiceConfig, now: number): Promise<void> {
  for (const account of config.accounts) {
    for (const profile of account.profiles) {
      for (const engine of profile.engines) {
        const since = await stores.profiles.engineEnabledSince(account.name, profile.name, engine.id);
        if (engine.enabled && since === null)
          await stores.profiles.setEngineEnabledSince(account.name, profile.name, engine.id, now);
        if (!engine.enabled && since !== null)
          await stores.profiles.setEngineEnabledSince(account.name, profile.name, engine.id, null);
      }
    }
  }
}
