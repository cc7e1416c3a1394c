import type { EngineDefinition, ProfileConfig } from "../config/config.model.ts";
import { type MomentsError, momentsError } from "../errors/moments.errors.ts";
import type { Stores } from "../ports/stores.ts";
import { err, ok, type Result } from "../result.ts";
import { isStorableText } from "../values/storable-text.rules.ts";
import { readCookieValue } from "../visitors/cookies.rules.ts";
import { findTapidId, parseTapid, tapidCookieName } from "../visitors/tapid.rules.ts";
import {
  buildKnownVisitorId,
  isLookupVisitorId,
  isUsableVisitorId,
  normaliseKnownVisitorId,
} from "../visitors/visitor-id.rules.ts";
import { checkEngineAccess, readAttributeLookup, readFlag, type VisitorData, visitorDataFor } from "./moments.rules.ts";

export interface MomentsQuery {
  /** The path's names; null when one could not be decoded (bad percent-encoding), which names nothing. */
  readonly account: string | null;
  readonly profile: string | null;
  readonly engineId: string | null;
  /** The path identifier (anonymous visitor ID) of the first form, or absent for the attribute form. */
  /** The path's visitor identifier; null when it could not be decoded (bad percent-encoding), which no visitor has. */
  readonly visitorId?: string | null;
  readonly attributeId?: string;
  readonly attributeValue?: string;
  readonly suppressNotFound?: string;
  readonly ignoreTapid?: string;
  readonly referer: string | null;
  readonly cookieHeader: string | null;
}

/** The answer: the visitor data, or `null` for "not found, and suppressNotFound asked for an empty 200". */
export type MomentsAnswer = VisitorData | null;

/**
 * What an engine answers of a visitor, or why it answers nothing (MOM-08, MOM-10, DEC-MOM-04): the engine is
 * disabled (403); the visitor is in no group; the engine has no time it was enabled since; or the visitor's
 * last event (`lastSeenAt`) is before that time (`enabledSince`).
 */
export type EngineReading =
  | { readonly status: 200; readonly data: VisitorData }
  | { readonly status: 403; readonly why: "engine-disabled" }
  | { readonly status: 404; readonly why: "unknown-visitor" }
  | { readonly status: 404; readonly why: "never-enabled"; readonly lastSeenAt: number }
  | {
      readonly status: 404;
      readonly why: "no-event-since-enabled";
      readonly enabledSince: number;
      readonly lastSeenAt: number;
    };

/**
 * The visitor-data lookup (MOM-01..12, DEC-MOM-01..04): one read of the visitor's group, its profile and
 * the engine's state (`findForEngine`). Checks in the order the decisions give them: unknown names 404, disabled engine 403,
 * referer 403, bad parameters 400, then the visitor.
 */
export class MomentsService {
  constructor(private readonly deps: { stores: Stores }) {}

  async lookup(query: MomentsQuery): Promise<Result<MomentsAnswer, MomentsError>> {
    const { account, profile } = query;
    // A name no store keeps names no profile (decisions of our own, "Text that a store cannot keep").
    const profileRecord =
      account !== null && profile !== null && isStorableText(account) && isStorableText(profile)
        ? await this.deps.stores.tenancy.findProfile(account, profile)
        : null;
    const engine = profileRecord?.config.engines.find((candidate) => candidate.id === query.engineId);
    if (account === null || profile === null || !profileRecord || !engine) return err(momentsError("engineNotFound"));
    const access = checkEngineAccess(engine, query.referer);
    if (!access.ok) return access;
    const suppress = readFlag("suppressNotFound", query.suppressNotFound);
    if (!suppress.ok) return suppress;
    const ignoreTapid = readFlag("ignoreTapid", query.ignoreTapid);
    if (!ignoreTapid.ok) return ignoreTapid;

    // No visitor has an id (or a visitor ID attribute value) that collection and import refuse: such an id
    // is not looked up (a NUL would end it early in the store).
    let visitorId: string;
    let usable: boolean;
    if (query.visitorId !== undefined) {
      let chosen = query.visitorId;
      // DEC-MOM-03: unless told to ignore it, the TAPID entry of this account/profile wins over the path.
      const tapid = ignoreTapid.value ? null : readCookieValue(query.cookieHeader, tapidCookieName);
      const fromTapid = tapid ? findTapidId(parseTapid(tapid), account, profile) : null;
      // An entry that cannot be a visitor id is ignored, as collection ignores it (DEC-COL-09).
      if (fromTapid && isUsableVisitorId(fromTapid)) chosen = fromTapid;
      usable = chosen !== null && isLookupVisitorId(chosen);
      // DEC-PRV-05: a known visitor ID in the path names its visitor by the normalised value, as collection keeps it.
      visitorId = chosen === null ? "" : normaliseKnownVisitorId(chosen, account, profile);
    } else {
      const lookup = readAttributeLookup(profileRecord.config, query.attributeId, query.attributeValue);
      if (!lookup.ok) return lookup;
      visitorId = buildKnownVisitorId(account, profile, lookup.value.attributeId, lookup.value.value);
      usable = isLookupVisitorId(lookup.value.value);
    }

    const reading = usable ? await this.readVisitor(account, profile, engine, profileRecord.config, visitorId) : null;
    if (reading?.status === 200) return ok(reading.data);
    return suppress.value ? ok(null) : err(momentsError("visitorNotFound"));
  }

  /**
   * svc-hub's console: what each engine of the profile answers of a visitor, in the configuration's order, as
   * `lookup` would answer it but for the Referer check (a console has no page to send): the data, 403 for a
   * disabled engine, or 404 and why. `visitorId` is any member of the visitor's group.
   */
  async readEngines(
    account: string,
    profile: string,
    config: ProfileConfig,
    visitorId: string,
  ): Promise<Array<{ readonly engine: EngineDefinition; readonly reading: EngineReading }>> {
    return Promise.all(
      config.engines.map(async (engine) => ({
        engine,
        reading: engine.enabled
          ? await this.readVisitor(account, profile, engine, config, visitorId)
          : ({ status: 403, why: "engine-disabled" } as const),
      })),
    );
  }

  /** MOM-10, DEC-MOM-04: data only for a visitor with events since the engine was enabled. */
  private async readVisitor(
    account: string,
    profile: string,
    engine: EngineDefinition,
    config: ProfileConfig,
    visitorId: string,
  ): Promise<EngineReading> {
    const found = await this.deps.stores.profiles.findForEngine(account, profile, visitorId, engine.id);
    if (!found) return { status: 404, why: "unknown-visitor" };
    const { engineEnabledSince: since } = found;
    const lastSeenAt = found.data.lastSeenAt;
    if (since === null) return { status: 404, why: "never-enabled", lastSeenAt };
    if (lastSeenAt < since) return { status: 404, why: "no-event-since-enabled", enabledSince: since, lastSeenAt };
    return {
      status: 200,
      data: visitorDataFor({ account, profileName: profile, config, engine, profile: found.data }),
    };
  }
}
