/**
 * REV-01..12, DEC-REV-01..03: the revisions API (v1). Scenarios without the admin API read the published
 * revision of the fixtures (TargetFixtures.revision; demo.md: acme/main, target prod); scenarios that
 * publish do it through the admin publish route (DEC-OPS-04), each on targets of its own, so that no scenario
 * changes another's "latest" (and the demo revision stays the latest of its target).
 */
import { createHash } from "node:crypto";
import fc from "fast-check";
import type { HttpAnswer } from "../harness/client.ts";
import {
  expectEqual,
  expectErrorBody,
  expectHeader,
  expectStatus,
  expectTrue,
  fail,
  isPlainObject,
  jsonArray,
  jsonObject,
} from "../harness/expect.ts";
import { formDataOf, type MultipartFile } from "../harness/multipart.ts";
import { defineScenarios, type ScenarioContext } from "../harness/scenario.ts";
import { loginV1, type V1Session } from "../harness/sessions.ts";
import { readZip, ZipFormatError, type ZipMember } from "../harness/zip-reader.ts";
import { advanceClock, readClock } from "./admin-support.ts";

interface Details {
  revision_id: string;
  account: string;
  profile: string;
  name: string;
  time_created: string;
  checksums: Record<string, Record<string, string>>;
  comment: string;
  created_by: string;
  targets_published: string[];
}

const detailsFields = [
  "revision_id",
  "account",
  "profile",
  "name",
  "time_created",
  "checksums",
  "comment",
  "created_by",
  "targets_published",
];
const timeCreatedShape = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (\d{4})\.(\d{2})\.(\d{2}) (\d{2}):(\d{2}) GMT$/;
const weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const notFound = "Revision details do not exist";
const notLatest = "The revision bundle requested is not the latest";
const permissionWording =
  "although the user is authenticated, the request is denied because of a lack of proper permissions";
/** The member names of the default prefix (DEC-REV-02), and the two names the service adds. */
const memberName = /^(utag\.js|utag\.[1-9][0-9]*\.js|utag\.sync\.js|mobile\.html)$/;
const minuteMs = 60_000;

function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** The UTC minute of `ms` as YYYYMMDDHHMM. */
function revisionIdOf(ms: number): string {
  return new Date(ms).toISOString().replace(/[-T:]/g, "").slice(0, 12);
}

/** The UTC minute a revision id names, or NaN. */
function minuteOfId(id: string): number {
  const match = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(id);
  if (!match) return Number.NaN;
  const [year, month, day, hour, minute] = match.slice(1).map(Number) as [number, number, number, number, number];
  const ms = Date.UTC(year, month - 1, day, hour, minute);
  return revisionIdOf(ms) === id ? ms : Number.NaN;
}

class RevisionsApi {
  constructor(
    private readonly ctx: ScenarioContext,
    private readonly session: V1Session,
    readonly account = ctx.fixtures.account,
    readonly profile = ctx.fixtures.profile,
  ) {}

  private get(path: string): Promise<HttpAnswer> {
    return this.ctx.base.get(
      `/v1/accounts/${encodeURIComponent(this.account)}/${encodeURIComponent(this.profile)}/revisions${path}`,
      {
        headers: this.session.headers,
        query: this.session.query,
      },
    );
  }

  list(): Promise<HttpAnswer> {
    return this.get("");
  }

  details(revisionId: string): Promise<HttpAnswer> {
    return this.get(`/${encodeURIComponent(revisionId)}/details`);
  }

  bundle(revisionId: string, target: string): Promise<HttpAnswer> {
    return this.get(`/${encodeURIComponent(revisionId)}/${encodeURIComponent(target)}`);
  }

  async ids(): Promise<string[]> {
    return revisionIdsOf(await this.list());
  }

  async readDetails(revisionId: string): Promise<Details> {
    return detailsOf(await this.details(revisionId));
  }

  /** The bundle's bytes and members, after checking it is served as a zip. */
  async download(revisionId: string, target: string): Promise<{ bytes: Uint8Array; members: ZipMember[] }> {
    const answer = await this.bundle(revisionId, target);
    expectStatus(answer, 200);
    expectHeader(answer, "content-type", /^application\/zip\b/);
    try {
      return { bytes: answer.bytes, members: readZip(answer.bytes) };
    } catch (error) {
      if (error instanceof ZipFormatError)
        fail(`the bundle of ${revisionId}/${target} is not a readable zip: ${error.message}`);
      throw error;
    }
  }
}

/** REV-01: a list answer, 200 with a JSON array of strings; another shape fails, showing it. */
function revisionIdsOf(answer: HttpAnswer): string[] {
  expectStatus(answer, 200);
  const ids = jsonArray(answer);
  expectTrue(
    ids.every((id) => typeof id === "string"),
    "expected a JSON array of revision_id strings",
    answer,
  );
  return ids as string[];
}

/**
 * REV-03: a details answer, 200 with an object whose revision_id, targets_published and checksums the
 * scenarios read; another shape fails, showing the body (expectDetailsShape checks every field).
 */
function detailsOf(answer: HttpAnswer, status = 200): Details {
  expectStatus(answer, status);
  const body = jsonObject(answer);
  expectTrue(
    typeof body.revision_id === "string" &&
      Array.isArray(body.targets_published) &&
      body.targets_published.every((target) => typeof target === "string") &&
      isPlainObject(body.checksums) &&
      Object.values(body.checksums).every(isPlainObject),
    "expected a revision object with revision_id (string), targets_published (array of strings) and checksums ({target: {file: sha256}})",
    answer,
  );
  return body as unknown as Details;
}

async function revisionsApi(ctx: ScenarioContext, user = ctx.fixtures.user): Promise<RevisionsApi> {
  return new RevisionsApi(ctx, await loginV1(ctx, user));
}

/**
 * The newest revision published to the fixtures' revision target: the demo revision (demo.md: one revision
 * on prod; no scenario publishes to that target).
 */
async function demoRevision(ctx: ScenarioContext, api: RevisionsApi): Promise<Details> {
  const target = ctx.fixtures.revision.target;
  const ids = await api.ids();
  for (const id of ids) {
    const details = await api.readDetails(id);
    if (details.targets_published.includes(target)) return details;
  }
  fail(
    `no revision of ${api.account}/${api.profile} is published to target ${target} (fixtures.revision; demo.md: one revision on prod); the list answered ${JSON.stringify(ids.slice(0, 20))}`,
  );
}

function file(filename: string, text = `/* ${filename} */\n`): MultipartFile {
  return { filename, bytes: text };
}

interface Publication {
  readonly targets: readonly string[];
  readonly files?: readonly MultipartFile[];
  readonly name?: string;
  readonly comment?: string;
  readonly createdBy?: string;
  readonly account?: string;
  readonly profile?: string;
}

/** POST /admin/accounts/{a}/profiles/{p}/revisions (DEC-OPS-04), multipart/form-data. */
function postPublication(ctx: ScenarioContext, publication: Publication): Promise<HttpAnswer> {
  const body = formDataOf(
    [
      ["name", publication.name ?? "Conformance release"],
      ["comment", publication.comment ?? "published by the conformance suite"],
      ["created_by", publication.createdBy ?? "conformance@example.com"],
      ["targets", publication.targets.join(",")],
    ],
    publication.files ?? [file("utag.js"), file("utag.1.js")],
  );
  const account = publication.account ?? ctx.fixtures.account;
  const profile = publication.profile ?? ctx.fixtures.profile;
  return ctx.base.post(
    `/admin/accounts/${encodeURIComponent(account)}/profiles/${encodeURIComponent(profile)}/revisions`,
    {
      headers: ctx.adminHeaders(),
      body,
    },
  );
}

async function publish(ctx: ScenarioContext, publication: Publication): Promise<Details> {
  return detailsOf(await postPublication(ctx, publication), 201);
}

async function clockNow(ctx: ScenarioContext): Promise<number> {
  return (await readClock(ctx)).nowMs;
}

/** REV-07: the manifest a details object implies: the details without the bundle.zip and manifest.json entries. */
function manifestOf(details: Details): Details {
  const checksums = Object.fromEntries(
    Object.entries(details.checksums).map(([target, files]) => [
      target,
      Object.fromEntries(Object.entries(files).filter(([name]) => name !== "bundle.zip" && name !== "manifest.json")),
    ]),
  );
  return { ...details, checksums };
}

/** REV-03, REV-04, REV-05: the shape of a details object. */
function expectDetailsShape(details: Details, account: string, profile: string): void {
  expectEqual(Object.keys(details).sort(), [...detailsFields].sort(), "the fields of the revision object");
  expectTrue(
    !Number.isNaN(minuteOfId(details.revision_id)),
    `revision_id must be YYYYMMDDHHMM, got ${JSON.stringify(details.revision_id)}`,
  );
  expectEqual(details.account, account, "account");
  expectEqual(details.profile, profile, "profile");
  for (const field of ["name", "comment", "created_by", "time_created"] as const)
    expectTrue(typeof details[field] === "string", `${field} must be a string`);
  expectTrue(
    /^[^\s@]+@[^\s@]+$/.test(details.created_by),
    `created_by must be an e-mail, got ${JSON.stringify(details.created_by)}`,
  );
  const time = timeCreatedShape.exec(details.time_created);
  expectTrue(
    time !== null,
    `time_created must read <weekday> YYYY.MM.DD HH:MM GMT, got ${JSON.stringify(details.time_created)}`,
  );
  const [weekday, year, month, day] = [time[1], Number(time[2]), Number(time[3]), Number(time[4])];
  expectEqual(
    weekday,
    weekdays[new Date(Date.UTC(year, month - 1, day)).getUTCDay()],
    `the weekday of ${details.time_created}`,
  );
  expectTrue(
    Array.isArray(details.targets_published) && details.targets_published.length > 0,
    `targets_published must be a non-empty array, got ${JSON.stringify(details.targets_published)}`,
  );
  expectEqual(
    Object.keys(details.checksums).sort(),
    [...details.targets_published].sort(),
    "checksums are keyed by the targets published",
  );
  for (const [target, files] of Object.entries(details.checksums)) {
    for (const required of ["manifest.json", "bundle.zip", "utag.js"])
      expectTrue(required in files, `checksums.${target} names ${required}`);
    for (const [name, hash] of Object.entries(files)) {
      expectTrue(
        /^[0-9a-f]{64}$/.test(hash),
        `checksums.${target}["${name}"] must be a SHA-256 hex string, got ${JSON.stringify(hash)}`,
      );
      expectTrue(
        name === "manifest.json" || name === "bundle.zip" || memberName.test(name),
        `checksums.${target} names an unexpected file ${JSON.stringify(name)}`,
      );
    }
  }
}

/** REV-06, REV-07, REV-08: the bundle holds the members and manifest.json, and every SHA-256 of the details matches. */
function expectBundleMatches(
  details: Details,
  target: string,
  bundle: { bytes: Uint8Array; members: ZipMember[] },
): void {
  const checksums = details.checksums[target] ?? fail(`the details have no checksums for ${target}`);
  expectEqual(sha256(bundle.bytes), checksums["bundle.zip"], "SHA-256 of the bundle served");
  const names = bundle.members.map((member) => member.name);
  expectEqual(
    [...names].sort(),
    Object.keys(checksums)
      .filter((name) => name !== "bundle.zip")
      .sort(),
    "the members of the bundle",
  );
  expectTrue(
    names.includes("utag.js") && names.includes("manifest.json"),
    `the bundle must hold utag.js and manifest.json, holds ${names.join(", ")}`,
  );
  for (const member of bundle.members)
    expectEqual(sha256(member.bytes), checksums[member.name], `SHA-256 of ${member.name}`);
  const manifest = bundle.members.find((member) => member.name === "manifest.json") as ZipMember;
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(manifest.bytes));
  } catch {
    fail("manifest.json is not JSON");
  }
  expectEqual(
    parsed,
    manifestOf(details),
    "manifest.json (the details without the bundle.zip and manifest.json entries)",
  );
}

export const revisionScenarios = defineScenarios("revisions", [
  {
    title:
      "[REV-01, REV-02] GET .../revisions answers a JSON array of revision_id strings (YYYYMMDDHHMM), newest first",
    async run(ctx) {
      const api = await revisionsApi(ctx);
      const answer = await api.list();
      expectStatus(answer, 200);
      expectHeader(answer, "content-type", /^application\/json\b/);
      const ids = jsonArray(answer);
      expectTrue(ids.length > 0, "expected a non-empty array (demo.md publishes one revision)", answer);
      for (const id of ids)
        expectTrue(
          typeof id === "string" && !Number.isNaN(minuteOfId(id)),
          `not a YYYYMMDDHHMM revision_id: ${JSON.stringify(id)}`,
        );
      const sorted = [...(ids as string[])].sort().reverse();
      expectEqual(ids, sorted, "revision ids newest first");
      expectEqual(new Set(ids).size, ids.length, "revision ids are unique");
    },
  },
  {
    title: "[REV-01, DEC-REV-01, DEC-GEN-06] a newly published revision is listed first, also with a trailing slash",
    needs: ["admin"],
    async run(ctx) {
      const api = await revisionsApi(ctx);
      const target = ctx.uniqueId("t");
      const first = await publish(ctx, { targets: [target] });
      const second = await publish(ctx, { targets: [target] });
      const ids = await api.ids();
      expectEqual(ids.slice(0, 2), [second.revision_id, first.revision_id], "the two newest revision ids");
      const session = await loginV1(ctx);
      const slashed = await ctx.base.get(`/v1/accounts/${ctx.fixtures.account}/${ctx.fixtures.profile}/revisions/`, {
        headers: session.headers,
        query: session.query,
      });
      expectStatus(slashed, 200);
      expectEqual(
        revisionIdsOf(slashed).slice(0, 2),
        [second.revision_id, first.revision_id],
        "the two newest revision ids, asked with a trailing slash",
        slashed,
      );
    },
  },
  {
    title:
      "[DEC-REV-01, REV-02] revision_id is the publish minute in UTC, or the next free minute when that one is taken",
    needs: ["admin", "test-clock"],
    async run(ctx) {
      const api = await revisionsApi(ctx);
      const target = ctx.uniqueId("t");
      const before = await clockNow(ctx);
      const published: Details[] = [];
      for (let index = 0; index < 3; index += 1) published.push(await publish(ctx, { targets: [target] }));
      const after = await clockNow(ctx);
      const ids = new Set(await api.ids());
      let previous = "";
      for (const details of published) {
        const minute = minuteOfId(details.revision_id);
        expectTrue(!Number.isNaN(minute), `revision_id ${details.revision_id} is YYYYMMDDHHMM`);
        expectTrue(details.revision_id > previous, `revision ids grow: ${previous} then ${details.revision_id}`);
        expectTrue(
          minute >= Math.floor(before / minuteMs) * minuteMs,
          `revision_id ${details.revision_id} is not before the publish minute ${revisionIdOf(before)}`,
        );
        // Every minute from the publish minute up to the id must have been taken already.
        for (let taken = Math.floor(after / minuteMs) * minuteMs; taken < minute; taken += minuteMs) {
          expectTrue(
            ids.has(revisionIdOf(taken)),
            `revision_id ${details.revision_id} skipped the free minute ${revisionIdOf(taken)}`,
          );
        }
        previous = details.revision_id;
      }
    },
  },
  {
    title:
      "[REV-03, REV-04, REV-05] the details of the demo revision on prod: every field, time_created as <weekday> YYYY.MM.DD HH:MM GMT, checksums by target",
    async run(ctx) {
      const api = await revisionsApi(ctx);
      const { target, files } = ctx.fixtures.revision;
      const answer = await api.details((await demoRevision(ctx, api)).revision_id);
      const details = detailsOf(answer);
      expectHeader(answer, "content-type", /^application\/json\b/);
      expectDetailsShape(details, ctx.fixtures.account, ctx.fixtures.profile);
      expectEqual(
        Object.keys(details.checksums[target] ?? {})
          .filter((name) => memberName.test(name))
          .sort(),
        [...files].sort(),
        "the demo revision's files (fixtures.revision)",
      );
    },
  },
  {
    title:
      "[REV-03, REV-04, DEC-REV-01, DEC-OPS-04] a revision published through the admin API has the name, comment, author and targets given, and the time of the publish minute",
    needs: ["admin", "test-clock"],
    async run(ctx) {
      const api = await revisionsApi(ctx);
      const targets = [ctx.uniqueId("t"), ctx.uniqueId("t")];
      const before = await clockNow(ctx);
      const answer = await postPublication(ctx, {
        targets,
        name: "Release 7 – ünïcode",
        // A form sends a line break as CRLF (multipart/form-data normalises a bare LF to it): sent so, kept so.
        comment: "a comment\r\nover two lines",
        createdBy: "author@example.com",
      });
      const after = await clockNow(ctx);
      const published = detailsOf(answer, 201);
      expectDetailsShape(published, ctx.fixtures.account, ctx.fixtures.profile);
      expectEqual(
        await api.readDetails(published.revision_id),
        published,
        "the details call answers what the publication answered",
      );
      expectEqual(
        {
          name: published.name,
          comment: published.comment,
          created_by: published.created_by,
          targets_published: published.targets_published,
        },
        {
          name: "Release 7 – ünïcode",
          comment: "a comment\r\nover two lines",
          created_by: "author@example.com",
          targets_published: targets,
        },
        "the fields given",
      );
      const time = timeCreatedShape.exec(published.time_created) as RegExpExecArray;
      const created = Date.UTC(Number(time[2]), Number(time[3]) - 1, Number(time[4]), Number(time[5]), Number(time[6]));
      expectTrue(
        created >= Math.floor(before / minuteMs) * minuteMs && created <= after,
        `time_created ${published.time_created} is not the publish minute (clock ${new Date(before).toISOString()} to ${new Date(after).toISOString()})`,
      );
    },
  },
  {
    title:
      "[REV-06, REV-07, REV-08, DEC-REV-02] the demo bundle on prod unzips to its members and manifest.json, and every SHA-256 matches the details",
    async run(ctx) {
      const api = await revisionsApi(ctx);
      const { target, files } = ctx.fixtures.revision;
      const details = await demoRevision(ctx, api);
      const bundle = await api.download(details.revision_id, target);
      expectBundleMatches(details, target, bundle);
      expectEqual(
        bundle.members
          .map((member) => member.name)
          .filter((name) => name !== "manifest.json")
          .sort(),
        [...files].sort(),
        "the demo bundle's files (fixtures.revision)",
      );
    },
  },
  {
    title:
      "[REV-06, REV-08, DEC-REV-02] a published bundle holds exactly the files sent, in the fixed order (loader, vendor tags by number, sync loader, mobile.html, manifest.json)",
    needs: ["admin"],
    async run(ctx) {
      const api = await revisionsApi(ctx);
      const target = ctx.uniqueId("t");
      const sent = [
        file("mobile.html", "<!DOCTYPE html><title>m</title>\n"),
        file("utag.10.js"),
        file("utag.sync.js"),
        file("utag.2.js"),
        file("utag.js", "x".repeat(5000)),
        file("utag.3.js", ""),
      ];
      const details = await publish(ctx, { targets: [target], files: sent });
      const bundle = await api.download(details.revision_id, target);
      expectBundleMatches(details, target, bundle);
      expectEqual(
        bundle.members.map((member) => member.name),
        ["utag.js", "utag.2.js", "utag.3.js", "utag.10.js", "utag.sync.js", "mobile.html", "manifest.json"],
        "the order of the members",
      );
      for (const part of sent) {
        const member = bundle.members.find((candidate) => candidate.name === part.filename) as ZipMember;
        expectEqual(new TextDecoder().decode(member.bytes), part.bytes, `the bytes of ${part.filename}`);
      }
    },
  },
  {
    title:
      "[DEC-REV-02] bundles are built once, deterministically: downloads are identical, entry times are fixed, and the same files give the same bytes up to manifest.json",
    needs: ["admin", "test-clock"],
    async run(ctx) {
      const api = await revisionsApi(ctx);
      const files = [file("utag.js", "/* loader */\n".repeat(40)), file("utag.1.js"), file("utag.sync.js")];
      const first = await publish(ctx, { targets: [ctx.uniqueId("t")], files });
      await advanceClock(ctx, "3m");
      const second = await publish(ctx, { targets: [ctx.uniqueId("t")], files: [...files].reverse() });
      const a = await api.download(first.revision_id, first.targets_published[0] as string);
      const again = await api.download(first.revision_id, first.targets_published[0] as string);
      const b = await api.download(second.revision_id, second.targets_published[0] as string);
      expectTrue(
        sha256(a.bytes) === sha256(again.bytes),
        `two downloads of the bundle of ${first.revision_id} differ (SHA-256 ${sha256(a.bytes)}, then ${sha256(again.bytes)}): it is not served as stored`,
      );
      const times = new Set([...a.members, ...b.members].map((member) => member.dosDateTime));
      expectEqual(times.size, 1, "every entry of both bundles carries one fixed time");
      const manifestAt = (members: ZipMember[]) =>
        (members.find((member) => member.name === "manifest.json") as ZipMember).localHeaderOffset;
      expectEqual(manifestAt(a.members), manifestAt(b.members), "where manifest.json starts");
      expectEqual(
        sha256(a.bytes.subarray(0, manifestAt(a.members))),
        sha256(b.bytes.subarray(0, manifestAt(b.members))),
        "the bytes of the same files, before manifest.json",
      );
      expectTrue(
        first.revision_id !== second.revision_id,
        `two publications must have two revision ids; both got ${first.revision_id}`,
      );
    },
  },
  {
    title:
      "[DEC-REV-02, DEC-REV-03] with several targets, each target's checksums are the same and each serves the same bundle",
    needs: ["admin"],
    async run(ctx) {
      const api = await revisionsApi(ctx);
      const targets = [ctx.uniqueId("t"), ctx.uniqueId("t"), ctx.uniqueId("t")];
      const details = await publish(ctx, { targets });
      const bundles = [];
      for (const target of targets) {
        expectEqual(details.checksums[target], details.checksums[targets[0] as string], `checksums of ${target}`);
        const bundle = await api.download(details.revision_id, target);
        expectBundleMatches(details, target, bundle);
        bundles.push(sha256(bundle.bytes));
      }
      expectEqual(new Set(bundles).size, 1, "the bundles of the targets");
    },
  },
  {
    title: "[REV-09, DEC-REV-03] a bundle for a target not in targets_published is 404 1260",
    async run(ctx) {
      const api = await revisionsApi(ctx);
      const details = await demoRevision(ctx, api);
      for (const target of [ctx.uniqueId("nope"), "qa", ctx.fixtures.revision.target.toUpperCase()]) {
        if (details.targets_published.includes(target)) continue;
        expectErrorBody(await api.bundle(details.revision_id, target), 404, 1260, notFound);
      }
    },
  },
  {
    title: "[REV-10, DEC-REV-03] details of an unknown or malformed revision_id are 404 1260; so is the bundle of one",
    async run(ctx) {
      const api = await revisionsApi(ctx);
      const ids = new Set(await api.ids());
      const unknown = ["199001010000", "197001010000"].find((id) => !ids.has(id)) as string;
      for (const id of [unknown, "2025", "abcdefghijkl", "202513010000", "202502300000", "2025010100000", "latest"]) {
        expectErrorBody(await api.details(id), 404, 1260, notFound);
        expectErrorBody(await api.bundle(id, ctx.fixtures.revision.target), 404, 1260, notFound);
      }
    },
  },
  {
    title:
      "[REV-11, DEC-REV-03] the bundle of a revision that is no longer the newest of its target is 400 1270; the newest is served, and latest is per target",
    needs: ["admin"],
    async run(ctx) {
      const api = await revisionsApi(ctx);
      const [shared, only] = [ctx.uniqueId("t"), ctx.uniqueId("t")];
      const older = await publish(ctx, { targets: [shared, only] });
      expectStatus(await api.bundle(older.revision_id, shared), 200);
      const newer = await publish(ctx, { targets: [shared] });
      expectErrorBody(await api.bundle(older.revision_id, shared), 400, 1270, notLatest);
      expectBundleMatches(newer, shared, await api.download(newer.revision_id, shared));
      expectBundleMatches(older, only, await api.download(older.revision_id, only));
      expectStatus(await api.details(older.revision_id), 200);
    },
  },
  {
    title:
      "[REV-12, DEC-GEN-04] an unknown account is 404 1240 and an unknown profile 404 1250, on list, details and bundle",
    async run(ctx) {
      const session = await loginV1(ctx);
      const id = "202501021953";
      const target = ctx.fixtures.revision.target;
      const unknownAccount = new RevisionsApi(ctx, session, ctx.uniqueId("noacct"), ctx.fixtures.profile);
      const unknownProfile = new RevisionsApi(ctx, session, ctx.fixtures.account, ctx.uniqueId("noprof"));
      for (const answer of [
        await unknownAccount.list(),
        await unknownAccount.details(id),
        await unknownAccount.bundle(id, target),
      ])
        expectErrorBody(answer, 404, 1240, "Account was not found");
      for (const answer of [
        await unknownProfile.list(),
        await unknownProfile.details(id),
        await unknownProfile.bundle(id, target),
      ])
        expectErrorBody(answer, 404, 1250, "Profile was not found");
    },
  },
  {
    title:
      "[DEC-GEN-03, AUT-03, REV-12] a user without a grant on the account gets 401 1469 on list, details and bundle",
    async run(ctx) {
      const demo = await demoRevision(ctx, await revisionsApi(ctx));
      const other = await revisionsApi(ctx, ctx.fixtures.otherUser);
      for (const answer of [
        await other.list(),
        await other.details(demo.revision_id),
        await other.bundle(demo.revision_id, ctx.fixtures.revision.target),
      ]) {
        expectErrorBody(answer, 401, 1469, permissionWording);
      }
    },
  },
  {
    title: "[SES-07, DEC-GEN-02] the revisions API needs the session cookie and the utk: without either it is 401 1401",
    async run(ctx) {
      const session = await loginV1(ctx);
      const path = `/v1/accounts/${ctx.fixtures.account}/${ctx.fixtures.profile}/revisions`;
      expectErrorBody(await ctx.base.get(path), 401, 1401, "Authentication Failed");
      expectErrorBody(await ctx.base.get(path, { headers: session.headers }), 401, 1401, "Authentication Failed");
      expectErrorBody(await ctx.base.get(path, { query: session.query }), 401, 1401, "Authentication Failed");
      expectStatus(await ctx.base.get(path, { headers: session.headers, query: session.query }), 200);
    },
  },
  {
    title:
      "[DEC-REV-01, DEC-REV-02, DEC-OPS-04] publishing refuses unsafe member names (zip-slip), unknown names, a missing main loader and bad targets with 400, and publishes nothing",
    needs: ["admin"],
    async run(ctx) {
      const api = await revisionsApi(ctx);
      const target = ctx.uniqueId("t");
      const before = await api.ids();
      // DEC-OPS-04 and DEC-REV-01/02 say what is refused, not in which words: the status is what is checked.
      const refusals: Publication[] = [
        { targets: [target], files: [file("utag.js"), file("../utag.1.js")] },
        { targets: [target], files: [file("utag.js"), file("..\\utag.1.js")] },
        { targets: [target], files: [file("utag.js"), file("tags/utag.1.js")] },
        { targets: [target], files: [file("utag.js"), file("/etc/cron.d/utag.1.js")] },
        { targets: [target], files: [file("utag.js"), file("evil.sh")] },
        { targets: [target], files: [file("utag.js"), file("manifest.json", "{}")] },
        { targets: [target], files: [file("utag.1.js")] },
        { targets: ["pr od"] },
      ];
      for (const publication of refusals) expectStatus(await postPublication(ctx, publication), 400);
      expectEqual(await api.ids(), before, "the revision ids after the refused publications");
      expectErrorBody(
        await postPublication(ctx, { targets: [target], account: ctx.uniqueId("noacct") }),
        404,
        1240,
        "Account was not found",
      );
      expectErrorBody(
        await postPublication(ctx, { targets: [target], profile: ctx.uniqueId("noprof") }),
        404,
        1250,
        "Profile was not found",
      );
    },
  },
  {
    title:
      "[REV-06, REV-08, DEC-REV-02] for any set of vendor tags, sync loader and mobile.html, the bundle holds exactly them in order with matching checksums",
    kind: "property",
    needs: ["admin"],
    async run(ctx) {
      const api = await revisionsApi(ctx);
      const members = fc.record({
        vendors: fc.uniqueArray(fc.integer({ min: 1, max: 999 }), { maxLength: 6 }),
        sync: fc.boolean(),
        mobile: fc.boolean(),
        loader: fc.string({ maxLength: 300 }),
      });
      await ctx.checkProperty(
        fc.asyncProperty(members, async ({ vendors, sync, mobile, loader }) => {
          const expected = [
            "utag.js",
            ...[...vendors].sort((a, b) => a - b).map((n) => `utag.${n}.js`),
            ...(sync ? ["utag.sync.js"] : []),
            ...(mobile ? ["mobile.html"] : []),
          ];
          const target = ctx.uniqueId("p");
          const sent = [...expected].reverse().map((name) => file(name, name === "utag.js" ? loader : undefined));
          const details = await publish(ctx, { targets: [target], files: sent });
          const bundle = await api.download(details.revision_id, target);
          expectBundleMatches(details, target, bundle);
          expectEqual(
            bundle.members.map((member) => member.name),
            [...expected, "manifest.json"],
            "the members in order",
          );
        }),
        { numRuns: 6 },
      );
    },
  },
]);
