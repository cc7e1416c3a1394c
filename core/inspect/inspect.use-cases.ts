import type { CollectedRequest, CollectJournal, StoredJournalEntry } from "../collect/collect-journal.ts";
import type { ProfileConfig, VisitorIdAttribute } from "../config/config.model.ts";
import { type ManagementError, managementError } from "../errors/management.errors.ts";
import type { VisitorData } from "../moments/moments.rules.ts";
import type { EngineReading, MomentsService } from "../moments/moments.use-cases.ts";
import type { Clock } from "../ports/clock.port.ts";
import { maxVisitorIdsPerQuery, type StoredEvent } from "../ports/events.store.ts";
import type { Stores } from "../ports/stores.ts";
import { applyEvent, isVisitOpen, type ProfilePolicy } from "../profiles/profile.rules.ts";
import { foldVisitorEvents, profileEventOf } from "../profiles/profiles.use-cases.ts";
import { identitiesOfEvent } from "../profiles/stitching.rules.ts";
import { err, ok, type Result } from "../result.ts";
import { chunks } from "../values/chunks.ts";
import { isStorableText } from "../values/storable-text.rules.ts";
import {
  buildKnownVisitorId,
  normaliseKnownVisitorId,
  normaliseVisitorIdValue,
  type VisitorIdDecision,
} from "../visitors/visitor-id.rules.ts";
import {
  decisionOfStoredEvent,
  diffProfiles,
  isJournalEntryOf,
  type ProfileChange,
  type ProfileView,
  viewOfProfile,
} from "./inspect.rules.ts";

/** One stored event explained: how its visitor ID was chosen, and what it changed in its visitor's profile. */
export interface EventExplanation {
  readonly event: StoredEvent;
  readonly decision: VisitorIdDecision;
  /** `journal`: the decision as seen when the event was collected (this node's journal still holds it); `stored`: rebuilt from the event. */
  readonly decisionKnown: "journal" | "stored";
  /** The request as received, while this node's journal still holds it (null otherwise). */
  readonly request: CollectedRequest | null;
  /** Null when the event's profile has no configuration. */
  readonly profileChanges: {
    /** The canonical id of the visitor's group. */
    readonly visitorId: string;
    readonly before: ProfileView | null;
    readonly after: ProfileView;
    readonly changes: readonly ProfileChange[];
  } | null;
}

/** How the console names a visitor: one of its visitor IDs, or a visitor ID attribute (id or name) and a value. */
export interface VisitorQuery {
  readonly account: string;
  readonly profile: string;
  readonly visitorId?: string;
  readonly attribute?: string;
  readonly value?: string;
}

/** What one engine answers of the visitor (the Referer check aside), with its status and why it answers nothing. */
export interface EngineAnswerView {
  readonly id: string;
  readonly name: string;
  readonly enabled: boolean;
  readonly answer: VisitorData | null;
  readonly status: 200 | 403 | 404;
  readonly note: string | null;
}

/** A visitor as the console shows it: its group, profile, visits, latest events and every engine's answer. */
export interface InspectedVisitor {
  /** The canonical id of the visitor's group. */
  readonly visitorId: string;
  /** Every visitor ID stitched into the group, the canonical one first. */
  readonly members: readonly string[];
  readonly profile: ProfileView;
  readonly visits: { readonly count: number; readonly current: { readonly startedAt: string; readonly open: boolean } };
  /** The group's latest events, newest first. */
  readonly events: readonly StoredEvent[];
  readonly engines: readonly EngineAnswerView[];
}

export interface InspectServiceDeps {
  readonly stores: Stores;
  /** This node's journal of collection outcomes (CollectService.journal). */
  readonly journal: CollectJournal;
  readonly moments: MomentsService;
  readonly clock: Clock;
  readonly policy: ProfilePolicy;
}

/** How many of a visitor's latest events the lookup shows. */
export const inspectedEventCount = 100;

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function invalid(parameter: string, problem: string): ManagementError {
  return managementError("invalidParameter", { parameter, problem });
}

function given(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}

/** A visitor ID attribute named by its numeric id or by its name. */
function findVisitorIdAttribute(config: ProfileConfig, named: string): VisitorIdAttribute | undefined {
  const byId = /^\d+$/.test(named) ? config.visitorIdAttributes.find((item) => item.id === Number(named)) : undefined;
  return byId ?? config.visitorIdAttributes.find((item) => item.name === named);
}

/** Why an engine answers nothing, in a sentence for the console (DEC-MOM-04, MOM-08). */
function noteOf(reading: EngineReading): string | null {
  switch (reading.status) {
    case 200:
      return null;
    case 403:
      return "The engine is disabled: the visitor-data API answers 403.";
    case 404:
      switch (reading.why) {
        case "unknown-visitor":
          return "The visitor has no profile.";
        case "never-enabled":
          return "The engine has no time it was enabled: no visitor has data in it yet.";
        case "no-event-since-enabled":
          return `No event since the engine was enabled (${iso(reading.enabledSince)}); the visitor's last was at ${iso(reading.lastSeenAt)}.`;
      }
  }
}

/**
 * The console's inspection of events and visitors (issue 32): one event explained (its visitor ID decision,
 * from this node's journal or rebuilt from the store, and what it changed in its visitor's profile, rebuilt
 * with the profile rules), and one visitor looked up with what each engine answers of it. Reads only.
 */
export class InspectService {
  constructor(private readonly deps: InspectServiceDeps) {}

  /** GET /admin/events/:seq. 404 1404 for a sequence number no stored event has. */
  async explainEvent(seq: number): Promise<Result<EventExplanation, ManagementError>> {
    const [event] = await this.deps.stores.events.query({ afterSeq: seq - 1, beforeSeq: seq + 1, limit: 1 });
    if (!event || event.seq !== seq) return err(managementError("itemNotFound", { what: `Event ${seq}` }));
    const entry = this.journalEntryOf(event);
    return ok({
      event,
      decision: entry ? entry.decision : decisionOfStoredEvent(event),
      decisionKnown: entry ? "journal" : "stored",
      request: entry ? entry.request : null,
      profileChanges: await this.profileChangesOf(event),
    });
  }

  /**
   * GET /admin/accounts/:account/profiles/:profile/visitors. 400 1400 naming the parameter when the query names
   * the visitor neither way, both ways, or by an attribute the profile does not have; 404 1240/1250 for an unknown
   * account or profile; 404 1404 for a visitor with no profile.
   */
  async lookupVisitor(query: VisitorQuery): Promise<Result<InspectedVisitor, ManagementError>> {
    const visitorId = given(query.visitorId);
    const attribute = given(query.attribute);
    const value = given(query.value);
    if (visitorId !== undefined && (attribute !== undefined || value !== undefined))
      return err(invalid("visitorId", "give either visitorId, or attribute and value, not both"));
    if (visitorId === undefined && attribute === undefined && value === undefined)
      return err(invalid("visitorId", "is required, or attribute and value"));
    if (visitorId === undefined && attribute === undefined) return err(invalid("attribute", "is required with value"));
    const { account, profile } = query;
    const { tenancy, profiles } = this.deps.stores;
    // A name no store keeps names no account (decisions of our own, "Text that a store cannot keep").
    if (!isStorableText(account) || !(await tenancy.findAccount(account)))
      return err(managementError("accountNotFound"));
    const record = isStorableText(profile) ? await tenancy.findProfile(account, profile) : null;
    if (!record) return err(managementError("profileNotFound"));
    const config = record.config;

    let member: string;
    if (visitorId !== undefined) {
      // DEC-PRV-05: a known visitor ID names its visitor by the normalised value, as collection keeps it.
      member = normaliseKnownVisitorId(visitorId, account, profile);
    } else {
      const idAttribute = findVisitorIdAttribute(config, attribute as string);
      if (!idAttribute)
        return err(invalid("attribute", `"${attribute}" is not a visitor ID attribute of ${account}/${profile}`));
      const normalised = normaliseVisitorIdValue(value ?? "");
      if (normalised === "") return err(invalid("value", "is required with attribute"));
      member = buildKnownVisitorId(account, profile, idAttribute.id, normalised);
    }

    // An id no store keeps names no visitor (decisions of our own, "Text that a store cannot keep").
    const found = isStorableText(member) ? await profiles.findByMember(account, profile, member) : null;
    if (!found) return err(managementError("visitorNotFound"));
    const { canonical, data } = found;
    const members = (await profiles.membersOf(account, profile, canonical)).filter((id) => id !== canonical).sort();
    const [events, readings] = await Promise.all([
      this.latestEventsOf(account, profile, [canonical, ...members]),
      this.deps.moments.readEngines(account, profile, config, canonical),
    ]);
    return ok({
      visitorId: canonical,
      members: [canonical, ...members],
      profile: viewOfProfile(data, config),
      visits: {
        count: data.visitCount,
        current: {
          startedAt: iso(data.visitStartedAt),
          open: isVisitOpen(data, this.deps.clock.now(), this.deps.policy),
        },
      },
      events,
      engines: readings.map(({ engine, reading }) => ({
        id: engine.id,
        name: engine.name,
        enabled: engine.enabled,
        answer: reading.status === 200 ? reading.data : null,
        status: reading.status,
        note: noteOf(reading),
      })),
    });
  }

  /** The journal's entry for a stored event, while this node's journal still holds it. */
  private journalEntryOf(event: StoredEvent): StoredJournalEntry | null {
    for (const entry of this.deps.journal.entriesAfter(0))
      if (entry.outcome === "stored" && isJournalEntryOf(entry, event)) return entry;
    return null;
  }

  /**
   * DEC-PRO-03, VID-08: the profile of the event's visitor group (as it is now stitched) from its events before
   * this one, then with it, and what changed. Null when the event's profile has no configuration.
   */
  private async profileChangesOf(event: StoredEvent): Promise<EventExplanation["profileChanges"]> {
    const { account, profile } = event;
    const record = await this.deps.stores.tenancy.findProfile(account, profile);
    if (!record) return null;
    const config = record.config;
    const group = await this.groupOf(event, config);
    const before = await foldVisitorEvents(
      this.deps.stores.events,
      { account, profile, visitorIds: group.members, upToSeq: event.seq - 1 },
      config,
      this.deps.policy,
    );
    const after = applyEvent(before, profileEventOf(event), config, this.deps.policy);
    return {
      visitorId: group.canonical,
      before: before ? viewOfProfile(before, config) : null,
      after: viewOfProfile(after, config),
      changes: diffProfiles(before, after, config),
    };
  }

  /**
   * The group an event belongs to: the groups of its visitor ID and of the known identities it names (the
   * profile worker joins them when it applies the event), with all their members. Before the worker has seen
   * the event, its visitor and identities may be in no group yet: they are the group then, named as the worker
   * would name it.
   */
  private async groupOf(event: StoredEvent, config: ProfileConfig): Promise<{ canonical: string; members: string[] }> {
    const { account, profile } = event;
    const profiles = this.deps.stores.profiles;
    const identities = identitiesOfEvent(
      { visitorId: event.visitorId, params: profileEventOf(event).params },
      account,
      profile,
      config,
    );
    const involved = [...new Set([event.visitorId, ...identities.map((identity) => identity.key)])];
    const canonicals = await profiles.canonicalsOf(account, profile, involved);
    const groups = [...new Set(canonicals.values())];
    const members = new Set(involved);
    for (const canonical of groups)
      for (const id of await profiles.membersOf(account, profile, canonical)) members.add(id);
    const canonical = canonicals.get(event.visitorId) ?? groups[0] ?? identities[0]?.key ?? event.visitorId;
    return { canonical, members: [...members] };
  }

  /** The latest events of a group's members, newest first (a query names at most maxVisitorIdsPerQuery of them). */
  private async latestEventsOf(account: string, profile: string, members: readonly string[]): Promise<StoredEvent[]> {
    const pages = await Promise.all(
      chunks(members, maxVisitorIdsPerQuery).map((visitorIds) =>
        this.deps.stores.events.query({ account, profile, visitorIds, order: "desc", limit: inspectedEventCount }),
      ),
    );
    return pages
      .flat()
      .sort((a, b) => b.seq - a.seq)
      .slice(0, inspectedEventCount);
  }
}
