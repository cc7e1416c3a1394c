import type { EngineDefinition } from "../config/config.model.ts";
import { type MomentsError, momentsError } from "../errors/moments.errors.ts";
import type { Stores } from "../ports/stores.ts";
import { err, ok, type Result } from "../result.ts";
import { readCookieValue } from "../visitors/cookies.rules.ts";
import { findTapidId, parseTapid, tapidCookieName } from "../visitors/tapid.rules.ts";
import { buildKnownVisitorId, isUsableVisitorId, normaliseKnownVisitorId } from "../visitors/visitor-id.rules.ts";
import { checkEngineAccess, readAttributeLookup, readFlag, type VisitorData, visitorDataFor } from "./moments.rules.ts";

export interface MomentsQuery {
  readonly account: string;
  readonly profile: string;
  readonly engineId: string;
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
 * The visitor-data lookup (MOM-01..12, DEC-MOM-01..04): one read of the visitor's group, its profile and
 * the engine's state (`findForEngine`). Checks in the order the decisions give them: unknown names 404, disabled engine 403,
 * referer 403, bad parameters 400, then the visitor.
 */
export class MomentsService {
  constructor(private readonly deps: { stores: Stores }) {}

  async lookup(query: MomentsQuery): Promise<Result<MomentsAnswer, MomentsError>> {
    const profileRecord = await this.deps.stores.tenancy.findProfile(query.account, query.profile);
    const engine = profileRecord?.config.engines.find((candidate) => candidate.id === query.engineId);
    if (!profileRecord || !engine) return err(momentsError("engineNotFound"));
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
      const fromTapid = tapid ? findTapidId(parseTapid(tapid), query.account, query.profile) : null;
      // An entry that cannot be a visitor id is ignored, as collection ignores it (DEC-COL-09).
      if (fromTapid && isUsableVisitorId(fromTapid)) chosen = fromTapid;
      usable = chosen !== null && isUsableVisitorId(chosen);
      // DEC-PRV-05: a known visitor ID in the path names its visitor by the normalised value, as collection keeps it.
      visitorId = chosen === null ? "" : normaliseKnownVisitorId(chosen, query.account, query.profile);
    } else {
      const lookup = readAttributeLookup(profileRecord.config, query.attributeId, query.attributeValue);
      if (!lookup.ok) return lookup;
      visitorId = buildKnownVisitorId(query.account, query.profile, lookup.value.attributeId, lookup.value.value);
      usable = isUsableVisitorId(lookup.value.value);
    }

    const data = usable
      ? await this.visitorData(query.account, query.profile, engine, profileRecord.config, visitorId)
      : null;
    if (data) return ok(data);
    return suppress.value ? ok(null) : err(momentsError("visitorNotFound"));
  }

  /** MOM-10, DEC-MOM-04: data only for a visitor with events since the engine was enabled. */
  private async visitorData(
    account: string,
    profile: string,
    engine: EngineDefinition,
    config: Parameters<typeof visitorDataFor>[0]["config"],
    visitorId: string,
  ): Promise<VisitorData | null> {
    const found = await this.deps.stores.profiles.findForEngine(account, profile, visitorId, engine.id);
    if (!found || found.engineEnabledSince === null || found.data.lastSeenAt < found.engineEnabledSince) return null;
    return visitorDataFor({ account, profileName: profile, config, engine, profile: found.data });
  }
}
