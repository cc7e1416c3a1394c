import { type ManagementError, managementError } from "../errors/management.errors.ts";
import type { Stores } from "../ports/stores.ts";
import type { ProfileRecord } from "../ports/tenancy.store.ts";
import { err, ok, type Result } from "../result.ts";
import { parseRevisionId } from "../revisions/revision-id.rules.ts";
import { isStorableText } from "../values/storable-text.rules.ts";
import {
  type DataLayerOverview,
  dataLayerOverview,
  type FileOverview,
  fileOverview,
  type PrivacyTransactionOverview,
  privacyTransactionOverview,
  type RevisionOverview,
  revisionOverview,
} from "./overview.rules.ts";

export interface OverviewServiceDeps {
  readonly stores: Pick<Stores, "tenancy" | "dataLayers" | "revisions" | "files" | "privacy">;
}

/**
 * What the console shows of one profile (issue 32, svc-hub's own admin API): its data layers, revisions and
 * their bundles, file imports and privacy transactions, read through the store ports. An unknown account or
 * profile is 404 1240 / 1250 (DEC-GEN-04), as the admin API's other calls on a profile answer it.
 */
export class OverviewService {
  constructor(private readonly deps: OverviewServiceDeps) {}

  /** DEC-DLE-05..07: every data layer with a change, deleted ones too, by dl_id, at most `limit`. */
  async dataLayers(
    account: string,
    profile: string,
    limit: number,
  ): Promise<Result<DataLayerOverview[], ManagementError>> {
    const found = await this.profileOf(account, profile);
    if (!found.ok) return found;
    return ok((await this.deps.stores.dataLayers.list(account, profile, limit)).map(dataLayerOverview));
  }

  /** REV-01, REV-03: the newest `limit` revisions, newest first, with their details and bundle members. */
  async revisions(
    account: string,
    profile: string,
    limit: number,
  ): Promise<Result<RevisionOverview[], ManagementError>> {
    const found = await this.profileOf(account, profile);
    if (!found.ok) return found;
    const { revisions } = this.deps.stores;
    const ids = (await revisions.listIds(account, profile)).slice(0, Math.max(0, limit));
    const stored = await Promise.all(ids.map((revisionId) => revisions.find(account, profile, revisionId)));
    return ok(stored.flatMap((revision) => (revision ? [revisionOverview(revision)] : [])));
  }

  /** DEC-REV-02: a revision's bundle as stored, whatever its targets; an unknown revision is 404 1260. */
  async revisionBundle(
    account: string,
    profile: string,
    revisionId: string,
  ): Promise<Result<Uint8Array, ManagementError>> {
    const found = await this.profileOf(account, profile);
    if (!found.ok) return found;
    const bundle =
      parseRevisionId(revisionId) === null
        ? null
        : await this.deps.stores.revisions.readBundle(account, profile, revisionId);
    return bundle ? ok(bundle) : err(managementError("revisionDetailsNotFound"));
  }

  /** FIL-06, FIL-07, DEC-FIL-03: the newest `limit` file imports, newest accepted first. */
  async files(account: string, profile: string, limit: number): Promise<Result<FileOverview[], ManagementError>> {
    const found = await this.profileOf(account, profile);
    if (!found.ok) return found;
    return ok((await this.deps.stores.files.list(account, profile, limit)).map(fileOverview));
  }

  /** DEC-PRV-03, DEC-PRV-04: the newest `limit` privacy transactions, gets and deletions, newest first. */
  async privacyTransactions(
    account: string,
    profile: string,
    limit: number,
  ): Promise<Result<PrivacyTransactionOverview[], ManagementError>> {
    const found = await this.profileOf(account, profile);
    if (!found.ok) return found;
    const names = new Map(found.value.config.visitorIdAttributes.map((attribute) => [attribute.id, attribute.name]));
    const listed = await this.deps.stores.privacy.list(account, profile, limit);
    return ok(listed.map((each) => privacyTransactionOverview(each, names)));
  }

  /** DEC-GEN-04: the account first (1240), then the profile (1250); a name no store keeps names neither. */
  private async profileOf(account: string, profile: string): Promise<Result<ProfileRecord, ManagementError>> {
    const { tenancy } = this.deps.stores;
    if (!isStorableText(account) || !(await tenancy.findAccount(account)))
      return err(managementError("accountNotFound"));
    const found = isStorableText(profile) ? await tenancy.findProfile(account, profile) : null;
    return found ? ok(found) : err(managementError("profileNotFound"));
  }
}
