/**
 * FIL-01..12, FIL-ERR-01..07, LIM-04, DEC-FIL-01..06: file import and the file status API (v1 and v2).
 * Files are uploaded through the admin upload route (DEC-OPS-04) with names no other scenario uses, and read
 * back through the status API once `POST /admin/wait` has drained the import. Files of the fixtures' file
 * definition (TargetFixtures.fileDefinition; demo.md: acme/main, prefix `purchases`, visitor ID column
 * `email` → 5120, `amount` number, `purchased_at` date `yyyy-MM-dd HH:mm`, event `purchase`) are imported;
 * files of a prefix of the scenario's own (no definition) give each scenario its own prefix group, so counts
 * are exact.
 */
import { createHash } from "node:crypto";
import fc from "fast-check";
import type { HttpAnswer } from "../harness/client.ts";
import {
  deepEqual,
  expectEqual,
  expectErrorBody,
  expectHeader,
  expectStatus,
  expectTrue,
  fail,
  isNonEmptyString,
  isPlainObject,
  jsonArray,
  jsonField,
  jsonObject,
} from "../harness/expect.ts";
import { defineScenarios, type ScenarioContext } from "../harness/scenario.ts";
import { loginV1 } from "../harness/sessions.ts";
import { waitForBackgroundWork } from "./admin-support.ts";
import { queryEvents } from "./collect-support.ts";

interface DateView {
  $date: string;
}

interface StatusEntry {
  state: string;
  timestamp: DateView;
  lines_skipped?: number;
  lines_failed_processing?: number;
  lines_successfully_processed?: number;
  last_failure?: string;
}

interface FileRecord {
  _id: { $oid: string };
  account: string;
  profile: string;
  created_at: DateView;
  node_id: string;
  file: { name: string; size: number; checksum: string; source: { type: string; host: string }; line_count: number };
  status: StatusEntry[];
}

const isoMillis = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const completed = ["DOWNLOADING", "DOWNLOADED", "PROCESSING", "PROCESSED"];
const notFoundMessage = "Supplied file name not found";
const permissionWording =
  "although the user is authenticated, the request is denied because of a lack of proper permissions";
const page = { referer: "https://shop.example.com/checkout", origin: "https://shop.example.com" };

/** interface.md, Errors: the file failure messages, as patterns ({placeholders} stand for any text). */
const failureTemplates = [
  "Unknown file prefix, unable to parse file",
  "DBObject of size {n} is over Max BSON size {n}",
  "Failed to download (FTP, SFTP, S3) file",
  "Invalid connection type, or Could not find required (FTP, SFTP, S3) configuration parameters for definition",
  "Failed to find attribute for column with id",
  "Exception thrown while processing file",
  "Secondary visitor ID column= {column_name} does not exist in the file, unable to continue",
  "{date_format} could not be parsed as a Date",
  "The number of columns to be processed {n} must match the number of CellProcessors {n}: check that the number of CellProcessors you have defined matches the expected number of columns being read/written",
].map(
  (template) => new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[a-z_]+\}/g, ".+?")}$`, "s"),
);

function isCatalogueFailure(text: string): boolean {
  return failureTemplates.some((pattern) => pattern.test(text));
}

/** A token of letters, digits and `-` only, unique to this run and scenario: a prefix no definition has. */
function uniquePrefix(ctx: ScenarioContext, what: string): string {
  return ctx.uniqueId(what).replace(/_/g, "-");
}

/** The prefix of the fixtures' file definition (demo: purchases). */
function demoPrefix(ctx: ScenarioContext): string {
  return ctx.fixtures.fileDefinition.prefix;
}

/** The header of a file of the fixtures' definition: the visitor ID column, the amount and the date. */
function demoHeader(ctx: ScenarioContext): string {
  const { visitorIdColumn, amountColumn, dateColumn } = ctx.fixtures.fileDefinition;
  return `${visitorIdColumn},${amountColumn},${dateColumn}`;
}

function demoFileName(ctx: ScenarioContext): string {
  return `${ctx.fixtures.fileDefinition.prefix}_${uniquePrefix(ctx, "f")}.csv`;
}

/**
 * A UTC time written with a date format of the letters yyyy, MM, dd, HH, mm, ss and SSS, and 'quoted'
 * text (the file definition's dateFormat); any other character is itself.
 */
export function formatDate(ms: number, format: string): string {
  const date = new Date(ms);
  const pad = (value: number, width = 2) => String(value).padStart(width, "0");
  const fields: Record<string, string> = {
    yyyy: pad(date.getUTCFullYear(), 4),
    MM: pad(date.getUTCMonth() + 1),
    dd: pad(date.getUTCDate()),
    HH: pad(date.getUTCHours()),
    mm: pad(date.getUTCMinutes()),
    ss: pad(date.getUTCSeconds()),
    SSS: pad(date.getUTCMilliseconds(), 3),
  };
  return format.replace(/'([^']*)'|yyyy|MM|dd|HH|mm|ss|SSS/g, (token, quoted: string | undefined) =>
    quoted !== undefined ? quoted : (fields[token] as string),
  );
}

/** The minute of `ms` as YYYY-MM-DDTHH:MMZ (FIL-11). */
function minuteZ(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16)}Z`;
}

/**
 * A window of whole minutes around the records made from `first` to `last` (created_at, ms), so every record made
 * between them is inside it: taken from the records themselves, not from how fast the target made them.
 */
function windowAround(first: number, last = first): { startDate: string; endDate: string } {
  return { startDate: minuteZ(first - 60_000), endDate: minuteZ(last + 120_000) };
}

/** The created_at of a record, in ms. */
function createdAt(record: FileRecord): number {
  return Date.parse(record.created_at.$date);
}

function filesBase(version: "v1" | "v2", account: string, profile: string): string {
  return `/${version}/omnichannel/accounts/${encodeURIComponent(account)}/profiles/${encodeURIComponent(profile)}/files`;
}

/** The file status API as one user sees it, v1 (cookie + utk) or v2 (bearer). */
class FilesApi {
  constructor(
    private readonly ctx: ScenarioContext,
    readonly version: "v1" | "v2",
    private readonly auth: { headers: Record<string, string>; query: Record<string, string> },
    readonly account = ctx.fixtures.account,
    readonly profile = ctx.fixtures.profile,
  ) {}

  at(account: string, profile: string): FilesApi {
    return new FilesApi(this.ctx, this.version, this.auth, account, profile);
  }

  get(path: string, query: Record<string, string | undefined> = {}): Promise<HttpAnswer> {
    return this.ctx.base.get(`${filesBase(this.version, this.account, this.profile)}${path}`, {
      headers: this.auth.headers,
      query: { ...this.auth.query, ...query },
    });
  }

  count(query: Record<string, string | undefined>): Promise<HttpAnswer> {
    return this.get("/count", query);
  }

  search(query: Record<string, string | undefined>): Promise<HttpAnswer> {
    return this.get("/search", query);
  }

  file(name: string): Promise<HttpAnswer> {
    return this.get(`/${encodeURIComponent(name)}`);
  }

  async countOf(query: Record<string, string | undefined>): Promise<number> {
    const answer = await this.count(query);
    expectStatus(answer, 200);
    const body = jsonObject(answer);
    expectTrue(
      Number.isInteger(body.count) && Object.keys(body).length === 1,
      "count answers {count: integer}",
      answer,
    );
    return body.count as number;
  }

  async records(query: Record<string, string | undefined>): Promise<FileRecord[]> {
    const answer = await this.search(query);
    expectStatus(answer, 200);
    const body = jsonArray(answer);
    for (const record of body) expectRecordReadable(record, answer);
    return body as FileRecord[];
  }

  async record(name: string): Promise<FileRecord> {
    return recordOf(await this.file(name));
  }
}

/**
 * The parts of a record (FIL-06) that scenarios read before they check its shape: _id, created_at.$date,
 * file {name, source} and the status array. Without them the scenario fails here, showing the body,
 * rather than breaking on a missing field; expectRecordShape checks every field.
 */
function expectRecordReadable(record: unknown, answer: HttpAnswer): asserts record is FileRecord {
  const readable =
    isPlainObject(record) &&
    isPlainObject(record._id) &&
    isPlainObject(record.created_at) &&
    typeof record.created_at.$date === "string" &&
    isPlainObject(record.file) &&
    isPlainObject(record.file.source) &&
    Array.isArray(record.status) &&
    record.status.every(
      (entry) => isPlainObject(entry) && (entry.timestamp === undefined || isPlainObject(entry.timestamp)),
    );
  expectTrue(
    readable,
    `expected a file record {_id, account, profile, created_at: {$date}, node_id, file: {name, ..., source}, status: [...]}, got ${JSON.stringify(record)?.slice(0, 300)}`,
    answer,
  );
}

/** A single-file answer with this status, and its record. */
function recordOf(answer: HttpAnswer, status = 200): FileRecord {
  expectStatus(answer, status);
  const record = jsonObject(answer);
  expectRecordReadable(record, answer);
  return record;
}

async function v1Api(ctx: ScenarioContext, user = ctx.fixtures.user): Promise<FilesApi> {
  const session = await loginV1(ctx, user);
  return new FilesApi(ctx, "v1", { headers: { ...session.headers }, query: { ...session.query } });
}

async function v2Token(
  ctx: ScenarioContext,
  user: { email: string; apiKey: string } = ctx.fixtures.user,
): Promise<string> {
  const answer = await ctx.base.post("/v2/auth", { form: { username: user.email, key: user.apiKey } });
  expectStatus(answer, 200);
  return jsonField(answer, "token", isNonEmptyString, "a non-empty string");
}

async function v2Api(
  ctx: ScenarioContext,
  user: { email: string; apiKey: string } = ctx.fixtures.user,
): Promise<FilesApi> {
  return new FilesApi(ctx, "v2", { headers: { authorization: `Bearer ${await v2Token(ctx, user)}` }, query: {} });
}

/** Uploads a file through the admin API (DEC-OPS-04): 202. */
async function upload(
  ctx: ScenarioContext,
  name: string,
  text: string | Uint8Array,
  account = ctx.fixtures.account,
  profile = ctx.fixtures.profile,
): Promise<HttpAnswer> {
  return ctx.base.post(
    `/admin/accounts/${encodeURIComponent(account)}/profiles/${encodeURIComponent(profile)}/files/${encodeURIComponent(name)}`,
    {
      headers: { ...ctx.adminHeaders(), "content-type": "text/csv" },
      body: text,
    },
  );
}

/** Uploads, waits, and answers the record as v1 reads it. */
async function importFile(
  ctx: ScenarioContext,
  name: string,
  text: string | Uint8Array,
  api?: FilesApi,
): Promise<FileRecord> {
  expectStatus(await upload(ctx, name, text), 202);
  await waitForBackgroundWork(ctx);
  return (api ?? (await v1Api(ctx))).record(name);
}

/** 2024-01-31 09:30 UTC, the default purchase time of a row. */
const purchaseTime = Date.UTC(2024, 0, 31, 9, 30);

/** A row of the fixtures' definition; `at` is a time (written with its dateFormat) or the date column's text. */
function demoRow(ctx: ScenarioContext, email: string, amount = "12.50", at: number | string = purchaseTime): string {
  return `${email},${amount},${typeof at === "number" ? formatDate(at, ctx.fixtures.fileDefinition.dateFormat) : at}`;
}

function lastEntry(record: FileRecord): StatusEntry {
  const entry = record.status.at(-1);
  if (!entry) fail(`${record.file.name}: the status history is empty`);
  return entry;
}

function expectStates(record: FileRecord, states: string[]): void {
  expectEqual(
    record.status.map((entry) => entry.state),
    states,
    `states of ${record.file.name}`,
  );
}

/** FIL-06, FIL-07, DEC-FIL-05: every field of a record, and its bytes when known. */
function expectRecordShape(
  record: FileRecord,
  expected: { name: string; account: string; profile: string; bytes?: Uint8Array; lines?: number },
): void {
  const fields = ["_id", "account", "profile", "created_at", "node_id", "file", "status"];
  for (const field of fields)
    expectTrue(Object.hasOwn(record, field), `a record has ${field}: ${JSON.stringify(record).slice(0, 300)}`);
  expectTrue(
    typeof record._id?.$oid === "string" && /^[0-9a-f]{24}$/.test(record._id.$oid),
    `_id.$oid is 24 hex digits, got ${JSON.stringify(record._id)}`,
  );
  expectEqual(record.account, expected.account, "account");
  expectEqual(record.profile, expected.profile, "profile");
  expectTrue(
    isoMillis.test(record.created_at?.$date ?? ""),
    `created_at.$date is ISO 8601 with milliseconds in UTC, got ${JSON.stringify(record.created_at)}`,
  );
  expectTrue(
    typeof record.node_id === "string" && record.node_id !== "",
    `node_id is a non-empty string, got ${JSON.stringify(record.node_id)}`,
  );
  expectEqual(record.file.name, expected.name, "file.name");
  expectTrue(
    Number.isInteger(record.file.size),
    `file.size must be an integer, got ${JSON.stringify(record.file.size)}`,
  );
  expectTrue(
    typeof record.file.checksum === "string",
    `file.checksum must be a string, got ${JSON.stringify(record.file.checksum)}`,
  );
  expectTrue(
    typeof record.file.source?.type === "string" && typeof record.file.source?.host === "string",
    `file.source has type and host, got ${JSON.stringify(record.file.source)}`,
  );
  expectTrue(
    Number.isInteger(record.file.line_count),
    `file.line_count must be an integer, got ${JSON.stringify(record.file.line_count)}`,
  );
  if (expected.bytes) {
    expectEqual(record.file.size, expected.bytes.byteLength, "file.size (bytes)");
    expectEqual(
      record.file.checksum,
      createHash("md5").update(expected.bytes).digest("hex"),
      "file.checksum (MD5 hex, DEC-FIL-05)",
    );
  }
  if (expected.lines !== undefined) expectEqual(record.file.line_count, expected.lines, "file.line_count");
  expectTrue(
    Array.isArray(record.status) && record.status.length > 0,
    `status must be a non-empty array, got ${JSON.stringify(record.status)}`,
  );
  for (const entry of record.status) {
    expectTrue(typeof entry.state === "string", `a status entry has a state: ${JSON.stringify(entry)}`);
    expectTrue(
      isoMillis.test(entry.timestamp?.$date ?? ""),
      `a status entry has timestamp.$date, got ${JSON.stringify(entry)}`,
    );
    for (const counter of ["lines_skipped", "lines_failed_processing", "lines_successfully_processed"] as const) {
      if (entry[counter] !== undefined) expectTrue(Number.isInteger(entry[counter]), `${counter} is an integer`);
    }
    if (entry.last_failure !== undefined)
      expectTrue(
        isCatalogueFailure(entry.last_failure),
        `last_failure is a catalogue message, got ${JSON.stringify(entry.last_failure)}`,
      );
  }
  const times = record.status.map((entry) => Date.parse(entry.timestamp.$date));
  expectTrue(
    times.every((time, index) => index === 0 || time >= (times[index - 1] as number)),
    `status timestamps never go back: ${JSON.stringify(record.status)}`,
  );
}

/** FIL-ERR-01..04: a 400 1400 whose message names the parameter (DEC-FIL-06). */
function expectBadParameter(answer: HttpAnswer, parameter: string): void {
  const body = expectErrorBody(answer, 400, 1400);
  expectTrue(body.message.includes(parameter), `the 400 message names ${parameter}: ${JSON.stringify(body.message)}`);
}

/** A file of `rows` demo rows for visitors of its own, and its text as bytes. */
function demoFile(ctx: ScenarioContext, rows: string[]): { name: string; text: string; bytes: Uint8Array } {
  const text = `${[demoHeader(ctx), ...rows].join("\n")}\n`;
  return { name: demoFileName(ctx), text, bytes: new TextEncoder().encode(text) };
}

/** Imports a file that fails (or has rows that fail) and answers its record (FIL-09). */
async function importFailing(ctx: ScenarioContext, name: string, text: string | Uint8Array): Promise<FileRecord> {
  const record = await importFile(ctx, name, text);
  const entry = lastEntry(record);
  if (entry.last_failure === undefined)
    fail(`${name}: expected last_failure on the last entry, got ${JSON.stringify(record.status)}`);
  for (const each of record.status.slice(0, -1)) {
    expectTrue(
      each.last_failure === undefined,
      `only the last entry carries last_failure: ${JSON.stringify(record.status)}`,
    );
  }
  return record;
}

export const fileScenarios = defineScenarios("files", [
  {
    title:
      "[FIL-01, FIL-04, FIL-06, FIL-07, FIL-08, DEC-FIL-05] v1 single file status: a completed file's record has every field, its MD5 and size, and the four states in order",
    needs: ["admin"],
    async run(ctx) {
      const file = demoFile(ctx, [
        demoRow(ctx, `${uniquePrefix(ctx, "ann")}@example.com`),
        demoRow(ctx, `${uniquePrefix(ctx, "bob")}@example.com`, "3"),
      ]);
      const api = await v1Api(ctx);
      const record = await importFile(ctx, file.name, file.text, api);
      expectRecordShape(record, {
        name: file.name,
        account: ctx.fixtures.account,
        profile: ctx.fixtures.profile,
        bytes: file.bytes,
        lines: 3,
      });
      expectStates(record, completed);
      expectEqual(
        { ...lastEntry(record), timestamp: undefined },
        {
          state: "PROCESSED",
          timestamp: undefined,
          lines_skipped: 0,
          lines_failed_processing: 0,
          lines_successfully_processed: 2,
        },
        "the PROCESSED entry",
      );
      expectHeader(await api.file(file.name), "content-type", /^application\/json\b/);
    },
  },
  {
    title: "[FIL-02, FIL-04] v2 single file status with a bearer token and no utk answers the same record",
    needs: ["admin"],
    async run(ctx) {
      const file = demoFile(ctx, [demoRow(ctx, `${uniquePrefix(ctx, "v2")}@example.com`)]);
      const v1 = await importFile(ctx, file.name, file.text);
      const v2 = await (await v2Api(ctx)).record(file.name);
      expectEqual(v2, v1, "the v2 record");
    },
  },
  {
    title: "[FIL-03, FIL-11] v1 count with YYYY-MM-DDTHH:MMZ dates answers {count: integer}",
    needs: ["admin"],
    async run(ctx) {
      const prefix = uniquePrefix(ctx, "cnt");
      for (const id of ["2024-01-01", "2024-01-02"])
        expectStatus(await upload(ctx, `${prefix}_${id}.csv`, "a,b\n"), 202);
      await waitForBackgroundWork(ctx);
      const api = await v1Api(ctx);
      const window = windowAround(
        createdAt(await api.record(`${prefix}_2024-01-01.csv`)),
        createdAt(await api.record(`${prefix}_2024-01-02.csv`)),
      );
      expectEqual(await api.countOf({ filePrefix: prefix, ...window }), 2, "count");
    },
  },
  {
    title:
      "[FIL-05, FIL-10, DEC-FIL-06] search answers the records of the <prefix>_<id>.csv files of one prefix, oldest first",
    needs: ["admin"],
    async run(ctx) {
      const prefix = uniquePrefix(ctx, "srch");
      const names = [`${prefix}_2024-01-01.csv`, `${prefix}_2024-01-02.csv`, `${prefix}_2024-01-03.csv`];
      for (const name of names) {
        expectStatus(await upload(ctx, name, "a,b\n"), 202);
        await waitForBackgroundWork(ctx);
      }
      // Neither of these is in the group: another prefix, and a name that only starts like it (which an
      // implementation may refuse outright, as it is no <prefix>_<id>.csv at all: FIL-10).
      expectStatus(await upload(ctx, `${prefix}x_2024-01-01.csv`, "a\n"), 202);
      const bare = await upload(ctx, `${prefix}.csv`, "a\n");
      expectTrue(
        bare.status === 202 || bare.status === 400,
        `${prefix}.csv is taken (202) or refused (400), not ${bare.status}`,
      );
      await waitForBackgroundWork(ctx);
      const api = await v1Api(ctx);
      const window = windowAround(
        createdAt(await api.record(names[0] as string)),
        createdAt(await api.record(names.at(-1) as string)),
      );
      const records = await api.records({ filePrefix: prefix, ...window });
      expectEqual(
        records.map((record) => record.file.name),
        names,
        "the names found, oldest first",
      );
      for (const record of records)
        expectRecordShape(record, {
          name: record.file.name,
          account: ctx.fixtures.account,
          profile: ctx.fixtures.profile,
        });
      const times = records.map((record) => Date.parse(record.created_at.$date));
      expectTrue(
        times.every((time, index) => index === 0 || time >= (times[index - 1] as number)),
        `search must answer oldest first; created_at: ${JSON.stringify(records.map((record) => record.created_at.$date))}`,
      );
    },
  },
  {
    title: "[FIL-11, DEC-FIL-06] v1 and v2 dates accept Z, ±hhmm and ±hh:mm offsets, seconds and milliseconds",
    needs: ["admin"],
    async run(ctx) {
      const prefix = uniquePrefix(ctx, "fmt");
      expectStatus(await upload(ctx, `${prefix}_1.csv`, "a\n"), 202);
      await waitForBackgroundWork(ctx);
      const v1 = await v1Api(ctx);
      const created = Date.parse((await v1.record(`${prefix}_1.csv`)).created_at.$date);
      const local = (ms: number, offsetMinutes: number) => new Date(ms + offsetMinutes * 60_000).toISOString();
      const before = created - 3_600_000;
      const after = created + 3_600_000;
      const shapes: Array<[string, string]> = [
        [minuteZ(before), minuteZ(after)],
        [`${local(before, 60).slice(0, 16)}+0100`, `${local(after, -330).slice(0, 16)}-0530`],
        [`${local(before, 120).slice(0, 16)}+02:00`, `${local(after, -60).slice(0, 16)}-01:00`],
        [`${new Date(before).toISOString().slice(0, 19)}Z`, `${new Date(after).toISOString().slice(0, 19)}Z`],
        [new Date(before).toISOString(), new Date(after).toISOString()],
        [`${local(before, 60).slice(0, 23)}+0100`, `${local(after, 60).slice(0, 23)}+01:00`],
      ];
      for (const api of [v1, await v2Api(ctx)]) {
        for (const [startDate, endDate] of shapes) {
          const count = await api.countOf({ filePrefix: prefix, startDate, endDate });
          expectEqual(count, 1, `${api.version} count from ${startDate} to ${endDate}`);
          expectEqual(
            (await api.records({ filePrefix: prefix, startDate, endDate })).length,
            1,
            `${api.version} search from ${startDate} to ${endDate}`,
          );
        }
      }
    },
  },
  {
    title: "[FIL-12, DEC-FIL-06] v2 count and search apply to the files of one prefix only",
    needs: ["admin"],
    async run(ctx) {
      const prefix = uniquePrefix(ctx, "one");
      for (const name of [`${prefix}_1.csv`, `${prefix}_2.csv`, `${prefix}more_1.csv`, `${prefix}-b_1.csv`])
        expectStatus(await upload(ctx, name, "a\n"), 202);
      await waitForBackgroundWork(ctx);
      const api = await v2Api(ctx);
      const window = windowAround(
        createdAt(await api.record(`${prefix}_1.csv`)),
        createdAt(await api.record(`${prefix}-b_1.csv`)),
      );
      expectEqual(await api.countOf({ filePrefix: prefix, ...window }), 2, `count of ${prefix}`);
      expectEqual(
        (await api.records({ filePrefix: prefix, ...window })).map((record) => record.file.name),
        [`${prefix}_1.csv`, `${prefix}_2.csv`],
        `search of ${prefix}`,
      );
      expectEqual(await api.countOf({ filePrefix: `${prefix}more`, ...window }), 1, `count of ${prefix}more`);
    },
  },
  {
    title: "[DEC-FIL-06, FIL-06] the date range is inclusive at both ends, to the millisecond",
    needs: ["admin"],
    async run(ctx) {
      const prefix = uniquePrefix(ctx, "incl");
      expectStatus(await upload(ctx, `${prefix}_1.csv`, "a\n"), 202);
      const api = await v2Api(ctx);
      const createdAt = (await api.record(`${prefix}_1.csv`)).created_at.$date;
      // The range below is read at the record's own time: a created_at without its milliseconds would fail it
      // for the wrong reason, so its shape is checked first.
      expectTrue(
        isoMillis.test(createdAt),
        `FIL-06: created_at.$date is ISO 8601 with milliseconds in UTC, got ${JSON.stringify(createdAt)}`,
      );
      const created = Date.parse(createdAt);
      const iso = (ms: number) => new Date(ms).toISOString();
      expectEqual(
        await api.countOf({ filePrefix: prefix, startDate: createdAt, endDate: createdAt }),
        1,
        "start = end = created_at",
      );
      expectEqual(
        await api.countOf({ filePrefix: prefix, startDate: iso(created + 1), endDate: iso(created + 60_000) }),
        0,
        "start 1 ms after created_at",
      );
      expectEqual(
        await api.countOf({ filePrefix: prefix, startDate: iso(created - 60_000), endDate: iso(created - 1) }),
        0,
        "end 1 ms before created_at",
      );
    },
  },
  {
    title: "[DEC-FIL-06] a profile without file definitions counts 0 and searches []",
    async run(ctx) {
      const api = (await v1Api(ctx)).at(ctx.fixtures.account, ctx.fixtures.otherProfile);
      const window = { startDate: "2000-01-01T00:00Z", endDate: "2100-01-01T00:00Z" };
      expectEqual(await api.countOf({ filePrefix: uniquePrefix(ctx, "none"), ...window }), 0, "count");
      expectEqual(await api.records({ filePrefix: uniquePrefix(ctx, "none"), ...window }), [], "search");
    },
  },
  {
    title:
      "[FIL-ERR-01, DEC-FIL-06] a prefix longer than 150 characters is 400 1400 naming filePrefix (count, search, v1, v2); 150 is accepted",
    async run(ctx) {
      const window = { startDate: "2024-01-01T00:00Z", endDate: "2024-01-02T00:00Z" };
      for (const api of [await v1Api(ctx), await v2Api(ctx)]) {
        expectBadParameter(await api.count({ filePrefix: "p".repeat(151), ...window }), "filePrefix");
        expectBadParameter(await api.search({ filePrefix: "p".repeat(151), ...window }), "filePrefix");
        expectEqual(
          await api.countOf({ filePrefix: "p".repeat(150), ...window }),
          0,
          `${api.version} count of a 150-character prefix`,
        );
      }
    },
  },
  {
    title:
      "[FIL-ERR-02, DEC-FIL-06] a missing filePrefix, startDate or endDate is 400 1400 naming it (count, search, v1, v2)",
    async run(ctx) {
      const full = { filePrefix: demoPrefix(ctx), startDate: "2024-01-01T00:00Z", endDate: "2024-01-02T00:00Z" };
      for (const api of [await v1Api(ctx), await v2Api(ctx)]) {
        for (const missing of ["filePrefix", "startDate", "endDate"] as const) {
          const query: Record<string, string | undefined> = { ...full, [missing]: undefined };
          expectBadParameter(await api.count(query), missing);
          expectBadParameter(await api.search(query), missing);
        }
      }
    },
  },
  {
    title: "[FIL-ERR-03, DEC-FIL-06] a date that is not a date-time is 400 1400 naming it (count, search, v1, v2)",
    async run(ctx) {
      const good = "2024-01-01T00:00Z";
      const bad = [
        "2024-01-01",
        "2024-01-01T00:00",
        "01/01/2024 00:00",
        "2024-13-01T00:00Z",
        "2024-01-01T25:00Z",
        "yesterday",
        "1704067200000",
      ];
      for (const api of [await v1Api(ctx), await v2Api(ctx)]) {
        for (const date of bad) {
          expectBadParameter(
            await api.count({ filePrefix: demoPrefix(ctx), startDate: date, endDate: good }),
            "startDate",
          );
          expectBadParameter(
            await api.search({ filePrefix: demoPrefix(ctx), startDate: good, endDate: date }),
            "endDate",
          );
        }
      }
    },
  },
  {
    title: "[FIL-ERR-03, FIL-11] any text as a date answers 200 or 400 naming the date, never anything else",
    kind: "property",
    async run(ctx) {
      const api = await v2Api(ctx);
      await ctx.checkProperty(
        fc.asyncProperty(fc.string({ maxLength: 40 }), async (date) => {
          const answer = await api.count({
            filePrefix: demoPrefix(ctx),
            startDate: date,
            endDate: "2100-01-01T00:00Z",
          });
          if (answer.status === 200) return;
          expectBadParameter(answer, "startDate");
        }),
        { numRuns: 40 },
      );
    },
  },
  {
    title:
      "[FIL-ERR-04, DEC-FIL-06] an end date before the start date is 400 1400 naming endDate (count, search, v1, v2)",
    async run(ctx) {
      const query = { filePrefix: demoPrefix(ctx), startDate: "2024-01-02T00:00Z", endDate: "2024-01-01T23:59Z" };
      for (const api of [await v1Api(ctx), await v2Api(ctx)]) {
        expectBadParameter(await api.count(query), "endDate");
        expectBadParameter(await api.search(query), "endDate");
      }
    },
  },
  {
    title:
      "[FIL-ERR-05, DEC-FIL-04] a file name longer than 150 characters (.csv included) is 400 1400 naming fileName; 150 is looked up",
    async run(ctx) {
      for (const api of [await v1Api(ctx), await v2Api(ctx)]) {
        expectBadParameter(
          await api.file(`${demoPrefix(ctx)}_${"9".repeat(150 - demoPrefix(ctx).length - 5)}x.csv`),
          "fileName",
        );
        expectErrorBody(
          await api.file(`${demoPrefix(ctx)}_${"9".repeat(150 - demoPrefix(ctx).length - 5)}.csv`),
          404,
          1404,
          notFoundMessage,
        );
      }
    },
  },
  {
    title: '[FIL-ERR-06, DEC-FIL-06] an unknown file name is 404 1404 "Supplied file name not found" (v1, v2)',
    async run(ctx) {
      for (const api of [await v1Api(ctx), await v2Api(ctx)])
        expectErrorBody(await api.file(demoFileName(ctx)), 404, 1404, notFoundMessage);
    },
  },
  {
    title:
      "[FIL-ERR-07, FIL-01, DEC-GEN-02] v1 without the session cookie or without utk is 401 1401 (count, search, single file)",
    async run(ctx) {
      const session = await loginV1(ctx);
      const base = filesBase("v1", ctx.fixtures.account, ctx.fixtures.profile);
      const query = { filePrefix: demoPrefix(ctx), startDate: "2024-01-01T00:00Z", endDate: "2024-01-02T00:00Z" };
      for (const path of ["/count", "/search", `/${demoPrefix(ctx)}_1.csv`]) {
        expectErrorBody(await ctx.base.get(`${base}${path}`, { query }), 401, 1401, "Authentication Failed");
        expectErrorBody(
          await ctx.base.get(`${base}${path}`, { query, headers: session.headers }),
          401,
          1401,
          "Authentication Failed",
        );
        expectErrorBody(
          await ctx.base.get(`${base}${path}`, { query: { ...query, ...session.query } }),
          401,
          1401,
          "Authentication Failed",
        );
      }
    },
  },
  {
    title:
      "[FIL-ERR-07, FIL-02, DEC-GEN-02, AUT-02] v2 without a bearer token, with a bad one, with the API key itself or with a v1 session is 401 1401",
    async run(ctx) {
      const base = filesBase("v2", ctx.fixtures.account, ctx.fixtures.profile);
      const session = await loginV1(ctx);
      const query = { filePrefix: demoPrefix(ctx), startDate: "2024-01-01T00:00Z", endDate: "2024-01-02T00:00Z" };
      const refused: Array<Record<string, string>> = [
        {},
        { authorization: "Bearer not-a-token" },
        { authorization: `Bearer ${ctx.fixtures.user.apiKey}` },
        { authorization: `Basic ${btoa(`${ctx.fixtures.user.email}:${ctx.fixtures.user.password}`)}` },
        session.headers,
      ];
      for (const headers of refused) {
        for (const path of ["/count", "/search", `/${demoPrefix(ctx)}_1.csv`]) {
          expectErrorBody(
            await ctx.base.get(`${base}${path}`, { query: { ...query, ...session.query }, headers }),
            401,
            1401,
            "Authentication Failed",
          );
        }
      }
    },
  },
  {
    title:
      "[FIL-01, FIL-02, DEC-GEN-04, DEC-GEN-03] unknown account 404 1240, unknown profile 404 1250, no grant 401 1469 (v1, v2)",
    async run(ctx) {
      const query = { filePrefix: demoPrefix(ctx), startDate: "2024-01-01T00:00Z", endDate: "2024-01-02T00:00Z" };
      for (const api of [await v1Api(ctx), await v2Api(ctx)]) {
        for (const path of ["/count", "/search", `/${demoPrefix(ctx)}_1.csv`]) {
          expectErrorBody(
            await api.at(uniquePrefix(ctx, "noacct"), ctx.fixtures.profile).get(path, query),
            404,
            1240,
            "Account was not found",
          );
          expectErrorBody(
            await api.at(ctx.fixtures.account, uniquePrefix(ctx, "noprof")).get(path, query),
            404,
            1250,
            "Profile was not found",
          );
          expectErrorBody(
            await api.at(ctx.fixtures.otherAccount, ctx.fixtures.otherAccountProfile).get(path, query),
            401,
            1469,
            permissionWording,
          );
        }
      }
    },
  },
  {
    title:
      "[FIL-07, DEC-FIL-03, DEC-FIL-04] PROCESSED counts rows skipped (no visitor ID, blank lines), failed and imported, and names the last row failure",
    needs: ["admin"],
    async run(ctx) {
      const email = (what: string) => `${uniquePrefix(ctx, what)}@example.com`;
      const rows = [
        demoRow(ctx, email("a")),
        demoRow(ctx, ""),
        "",
        demoRow(ctx, email("b"), "lots"),
        demoRow(ctx, email("c"), "4", "31.01.2024 09:30"),
        demoRow(ctx, email("d"), "5"),
      ];
      const record = await importFailing(ctx, demoFile(ctx, rows).name, `${[demoHeader(ctx), ...rows].join("\n")}\n`);
      expectStates(record, completed);
      expectEqual(
        { ...lastEntry(record), timestamp: undefined },
        {
          state: "PROCESSED",
          timestamp: undefined,
          lines_skipped: 2,
          lines_failed_processing: 2,
          lines_successfully_processed: 2,
          last_failure: `${ctx.fixtures.fileDefinition.dateFormat} could not be parsed as a Date`,
        },
        "the PROCESSED entry",
      );
    },
  },
  {
    title:
      '[FIL-09, DEC-FIL-03] unknown prefix: "Unknown file prefix, unable to parse file" on PROCESSING, which the file never leaves',
    needs: ["admin"],
    async run(ctx) {
      const record = await importFailing(
        ctx,
        `${uniquePrefix(ctx, "nodef")}_1.csv`,
        `${demoHeader(ctx)}\n${demoRow(ctx, "x@example.com")}\n`,
      );
      expectStates(record, ["DOWNLOADING", "DOWNLOADED", "PROCESSING"]);
      expectEqual(lastEntry(record).last_failure, "Unknown file prefix, unable to parse file", "last_failure");
    },
  },
  {
    title:
      '[FIL-09, DEC-FIL-03] visitor ID column missing: "Secondary visitor ID column= email does not exist in the file, unable to continue"',
    needs: ["admin"],
    async run(ctx) {
      const { visitorIdColumn, amountColumn, dateColumn } = ctx.fixtures.fileDefinition;
      const record = await importFailing(
        ctx,
        demoFileName(ctx),
        `not_${visitorIdColumn},${amountColumn},${dateColumn}\n${demoRow(ctx, "x@example.com")}\n`,
      );
      expectStates(record, ["DOWNLOADING", "DOWNLOADED", "PROCESSING"]);
      expectEqual(
        lastEntry(record).last_failure,
        `Secondary visitor ID column= ${visitorIdColumn} does not exist in the file, unable to continue`,
        "last_failure",
      );
    },
  },
  {
    title:
      '[FIL-09, DEC-FIL-03] mapped column missing: a file with 2 of the 3 mapped columns fails "The number of columns to be processed 2 must match the number of CellProcessors 3: …" on PROCESSING',
    needs: ["admin"],
    async run(ctx) {
      const { visitorIdColumn, amountColumn } = ctx.fixtures.fileDefinition;
      // The definition maps three columns (the visitor ID, the amount and the date: the scenarios import files of
      // exactly these); this file has two, both mapped. So the numbers are 2 and 3 whichever way they are counted:
      // the columns of its rows (as the message's origin, SuperCSV, counts them) or the mapped columns its header
      // has (as svc-hub counts them), against one processor per mapped column.
      const record = await importFailing(
        ctx,
        demoFileName(ctx),
        `${visitorIdColumn},${amountColumn}\nx@example.com,1\n`,
      );
      expectStates(record, ["DOWNLOADING", "DOWNLOADED", "PROCESSING"]);
      expectEqual(
        lastEntry(record).last_failure,
        "The number of columns to be processed 2 must match the number of CellProcessors 3: check that the number of CellProcessors you have defined matches the expected number of columns being read/written",
        "last_failure, its numbers filled in (DEC-FIL-03)",
      );
    },
  },
  {
    title:
      '[FIL-09, DEC-FIL-03] date format mismatch: "yyyy-MM-dd HH:mm could not be parsed as a Date", the file still PROCESSED',
    needs: ["admin"],
    async run(ctx) {
      const record = await importFailing(
        ctx,
        demoFileName(ctx),
        `${demoHeader(ctx)}\n${demoRow(ctx, `${uniquePrefix(ctx, "d")}@example.com`, "1", "2024-01-31T09:30:00Z")}\n`,
      );
      expectStates(record, completed);
      expectEqual(
        lastEntry(record).last_failure,
        `${ctx.fixtures.fileDefinition.dateFormat} could not be parsed as a Date`,
        "last_failure",
      );
      expectEqual(lastEntry(record).lines_failed_processing, 1, "lines_failed_processing");
    },
  },
  {
    title:
      '[FIL-09, DEC-FIL-03] a value that cannot be parsed: "Exception thrown while processing file", the file still PROCESSED',
    needs: ["admin"],
    async run(ctx) {
      const record = await importFailing(
        ctx,
        demoFileName(ctx),
        `${demoHeader(ctx)}\n${demoRow(ctx, `${uniquePrefix(ctx, "v")}@example.com`, "twelve")}\n`,
      );
      expectStates(record, completed);
      expectEqual(lastEntry(record).last_failure, "Exception thrown while processing file", "last_failure");
    },
  },
  {
    title:
      '[FIL-09, DEC-FIL-03] too large a record: "DBObject of size n is over Max BSON size m" with n > m, on PROCESSING',
    needs: ["admin"],
    async run(ctx) {
      // 17 MiB in one row: over BSON's 16 MiB, the default limit.
      const head = new TextEncoder().encode(
        `${demoHeader(ctx)}\n${uniquePrefix(ctx, "big")}@example.com,1,${formatDate(purchaseTime, ctx.fixtures.fileDefinition.dateFormat)},`,
      );
      const bytes = new Uint8Array(head.byteLength + 17 * 1024 * 1024 + 1);
      bytes.set(head);
      bytes.fill(0x78, head.byteLength);
      bytes[bytes.byteLength - 1] = 0x0a;
      const record = await importFailing(ctx, demoFileName(ctx), bytes);
      expectStates(record, ["DOWNLOADING", "DOWNLOADED", "PROCESSING"]);
      const match = /^DBObject of size (\d+) is over Max BSON size (\d+)$/.exec(lastEntry(record).last_failure ?? "");
      if (!match) fail(`last_failure: ${lastEntry(record).last_failure}`);
      expectTrue(Number(match[1]) > Number(match[2]), `the size named (${match[1]}) is over the maximum (${match[2]})`);
      expectEqual(record.file.size, bytes.byteLength, "file.size");
    },
  },
  {
    title:
      '[DEC-FIL-04, FIL-09] a file name already imported is not imported twice: the admin upload answers 409 {"message"}',
    needs: ["admin"],
    async run(ctx) {
      const file = demoFile(ctx, [demoRow(ctx, `${uniquePrefix(ctx, "twice")}@example.com`)]);
      const first = await importFile(ctx, file.name, file.text);
      const again = await upload(ctx, file.name, file.text);
      expectStatus(again, 409);
      expectHeader(again, "content-type", /^application\/json\b/);
      const body = jsonObject(again);
      expectTrue(
        Object.keys(body).length === 1 && typeof body.message === "string" && body.message !== "",
        `409 body is {"message"}`,
        again,
      );
      await waitForBackgroundWork(ctx);
      expectEqual(await (await v1Api(ctx)).record(file.name), first, "the first import's record");
    },
  },
  {
    title:
      "[DEC-FIL-04, DEC-FIL-01, VID-02] each row becomes an event of the known visitor with _source_file and _file_line_num, and reaches the visitor's profile",
    needs: ["admin", "event-log"],
    async run(ctx) {
      const email = `${uniquePrefix(ctx, "buyer")}@example.com`;
      const { fileDefinition: definition, purchaseEvent, attributes, audience, badge } = ctx.fixtures;
      const secondPurchase = Date.UTC(2024, 1, 1, 10);
      const file = demoFile(ctx, [
        demoRow(ctx, email, "12.50", purchaseTime),
        demoRow(ctx, email, "7", secondPurchase),
      ]);
      await importFile(ctx, file.name, file.text);
      const emailAttribute = ctx.fixtures.visitorIdAttributes.email.id;
      const visitor = `__${ctx.fixtures.account}_${ctx.fixtures.profile}__${emailAttribute}_${email}__`;
      const { events: stored, answer: events } = await queryEvents(ctx, {
        account: ctx.fixtures.account,
        profile: ctx.fixtures.profile,
        visitor,
      });
      expectEqual(
        stored.map((event) => [
          event.event,
          event.data._source_file,
          event.data._file_line_num,
          event.data[definition.amountColumn],
          event.data[definition.dateColumn],
        ]),
        [
          [purchaseEvent, file.name, 2, 12.5, purchaseTime],
          [purchaseEvent, file.name, 3, 7, secondPurchase],
        ],
        `the events of the visitor: the definition's event, the file, the line, ${definition.amountColumn} as a number, ${definition.dateColumn} read with ${definition.dateFormat}`,
        events,
      );
      const moments = await ctx.moments.get(
        `/personalization/accounts/${ctx.fixtures.account}/profiles/${ctx.fixtures.profile}/engines/${ctx.fixtures.engines.names}`,
        {
          query: { attributeId: String(emailAttribute), attributeValue: email },
          headers: page,
        },
      );
      expectStatus(moments, 200);
      const data = jsonObject(moments);
      const section = (name: string): Record<string, unknown> => (isPlainObject(data[name]) ? data[name] : {});
      const list = (name: string): unknown[] => (Array.isArray(data[name]) ? data[name] : []);
      expectEqual(section("metrics")[attributes.eventCount.name], 2, attributes.eventCount.name, moments);
      expectEqual(
        section("properties")[attributes.lastEventName.name],
        purchaseEvent,
        attributes.lastEventName.name,
        moments,
      );
      expectEqual(section("flags")[attributes.hasPurchased.name], true, attributes.hasPurchased.name, moments);
      expectTrue(
        list("audiences").includes(audience.name) && list("badges").includes(badge.name),
        `expected the audience ${audience.name} and the badge ${badge.name}`,
        moments,
      );
    },
  },
  {
    title:
      "[DEC-FIL-02, DEC-OPS-04] an admin upload answers 202 with the record, source.type upload and the node's host; the import runs in the background",
    needs: ["admin"],
    async run(ctx) {
      const file = demoFile(ctx, [demoRow(ctx, `${uniquePrefix(ctx, "src")}@example.com`)]);
      const answer = await upload(ctx, file.name, file.text);
      const accepted = recordOf(answer, 202);
      expectRecordShape(accepted, {
        name: file.name,
        account: ctx.fixtures.account,
        profile: ctx.fixtures.profile,
        bytes: file.bytes,
        lines: 2,
      });
      expectEqual(accepted.file.source.type, "upload", "file.source.type");
      expectTrue(accepted.file.source.host !== "", "file.source.host must name the host", answer);
      expectTrue(
        !accepted.status.some((entry) => entry.state === "PROCESSED") ||
          deepEqual(
            accepted.status.map((entry) => entry.state),
            completed,
          ),
        `states must come in the order ${completed.join(", ")}`,
        answer,
      );
      await waitForBackgroundWork(ctx);
      const record = await (await v2Api(ctx)).record(file.name);
      expectEqual(record._id, accepted._id, "_id");
      expectEqual(record.created_at, accepted.created_at, "created_at");
      expectStates(record, completed);
    },
  },
  {
    title:
      "[DEC-FIL-04, DEC-OPS-04] an upload to an unknown account or profile is 404 1240 / 1250, a bad file name 400 naming fileName",
    needs: ["admin"],
    async run(ctx) {
      expectErrorBody(
        await upload(ctx, demoFileName(ctx), "a\n", uniquePrefix(ctx, "noacct"), ctx.fixtures.profile),
        404,
        1240,
        "Account was not found",
      );
      expectErrorBody(
        await upload(ctx, demoFileName(ctx), "a\n", ctx.fixtures.account, uniquePrefix(ctx, "noprof")),
        404,
        1250,
        "Profile was not found",
      );
      expectBadParameter(await upload(ctx, `${demoPrefix(ctx)}_${"1".repeat(150)}.csv`, "a\n"), "fileName");
      expectBadParameter(await upload(ctx, `${demoPrefix(ctx)}_1.txt`, "a\n"), "fileName");
    },
  },
  {
    title:
      "[LIM-04, FIL-03, FIL-05] a count above 50 is answered exactly (the guidance to narrow the range is documentation), and search returns every file",
    needs: ["admin"],
    async run(ctx) {
      const prefix = uniquePrefix(ctx, "many");
      for (let index = 1; index <= 51; index += 1)
        expectStatus(await upload(ctx, `${prefix}_${String(index).padStart(3, "0")}.csv`, "a\n"), 202);
      await waitForBackgroundWork(ctx);
      const api = await v1Api(ctx);
      const window = windowAround(
        createdAt(await api.record(`${prefix}_001.csv`)),
        createdAt(await api.record(`${prefix}_051.csv`)),
      );
      expectEqual(await api.countOf({ filePrefix: prefix, ...window }), 51, "count");
      expectEqual((await api.records({ filePrefix: prefix, ...window })).length, 51, "search");
    },
  },
]);
