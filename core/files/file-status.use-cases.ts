import type { ManagementError } from "../errors/index.ts";
import { managementError } from "../errors/index.ts";
import type { Stores } from "../ports/stores.ts";
import { err, ok, type Result } from "../result.ts";
import { isStorableText } from "../values/storable-text.rules.ts";
import { checkStatusFileName } from "./file-name.rules.ts";
import { type FileQueryParameters, validateFileQuery } from "./file-query.rules.ts";
import { type FileStatusView, fileStatusView } from "./file-record.rules.ts";

/**
 * The file status API's use-cases (FIL-03..05, FIL-ERR-01..06, DEC-FIL-05, DEC-FIL-06), the same for v1 and
 * v2. Access (401, 404 1240/1250, 401 1469) is the route's guard; everything after it is here.
 */
export class FileStatusService {
  constructor(private readonly deps: { readonly stores: Stores }) {}

  /** FIL-03, DEC-FIL-06: files of one prefix created in [startDate, endDate]; a profile without definitions counts 0. */
  async count(
    account: string,
    profile: string,
    parameters: FileQueryParameters,
  ): Promise<Result<number, ManagementError>> {
    const query = validateFileQuery(parameters);
    if (!query.ok) return query;
    if (!(await this.hasFileDefinitions(account, profile))) return ok(0);
    // A prefix no store keeps names no file (decisions of our own, "Text that a store cannot keep").
    if (!isStorableText(query.value.prefix)) return ok(0);
    return ok(
      await this.deps.stores.files.count(account, profile, query.value.prefix, query.value.from, query.value.to),
    );
  }

  /** FIL-05, DEC-FIL-06: their records, oldest first; none for a profile without definitions, as count says. */
  async search(
    account: string,
    profile: string,
    parameters: FileQueryParameters,
  ): Promise<Result<FileStatusView[], ManagementError>> {
    const query = validateFileQuery(parameters);
    if (!query.ok) return query;
    if (!(await this.hasFileDefinitions(account, profile))) return ok([]);
    if (!isStorableText(query.value.prefix)) return ok([]);
    const records = await this.deps.stores.files.search(
      account,
      profile,
      query.value.prefix,
      query.value.from,
      query.value.to,
    );
    return ok(records.map(fileStatusView));
  }

  /**
   * DEC-FIL-06: a profile without file definitions counts 0, even for files received for it (each failed as
   * an unknown prefix; the single file status still finds them by name).
   */
  private async hasFileDefinitions(account: string, profile: string): Promise<boolean> {
    const found = await this.deps.stores.tenancy.findProfile(account, profile);
    return (found?.config.fileDefinitions.length ?? 0) > 0;
  }

  /** FIL-04, FIL-ERR-05, FIL-ERR-06 */
  async find(account: string, profile: string, fileName: string): Promise<Result<FileStatusView, ManagementError>> {
    const name = checkStatusFileName(fileName);
    if (!name.ok) return name;
    const record = isStorableText(name.value) ? await this.deps.stores.files.find(account, profile, name.value) : null;
    return record ? ok(fileStatusView(record)) : err(managementError("fileNotFound"));
  }
}
