/**
 * Helpers of the hosted data layer scenarios (DLE-*, DEC-DLE-*). Black-box: HTTP only, through the harness
 * client; the admin calls (POST /admin/wait, the test clock) are used only by scenarios that declare
 * them (needs "admin", "test-clock").
 */
import { type HttpAnswer, type RequestOptions, ScenarioFailure } from "../harness/client.ts";
import { expectEqual, expectErrorBody, expectHeader, expectStatus, expectTrue, jsonObject } from "../harness/expect.ts";
import type { ScenarioContext } from "../harness/scenario.ts";
import { loginV1, type V1Session } from "../harness/sessions.ts";
import { advanceClock, isShortTiming, readClock, waitForBackgroundWork } from "./admin-support.ts";

export const invalidRequestMessage = "Invalid request submission. Please check supplied parameters or request body.";
export const listTooLargeMessage =
  "Invalid request submission. Data layer list size exceeds maximum permissible (1000).";
export const statusUnavailableMessage =
  "Status unavailable. Please refer to documentation for request status retention period.";
export const alreadyExistsMessage = "Resource already exists. Updates are not permitted via this type of request.";
export const permissionWording =
  "although the user is authenticated, the request is denied because of a lack of proper permissions";

export function notFoundMessage(account: string, profile: string, dlId: string): string {
  return `Could not locate data layer for supplied params (${account}/${profile}/${dlId}).`;
}

/** A body to send: JSON (serialised here), or raw text or bytes with the headers given. */
export type Body =
  | { readonly json: unknown }
  | { readonly raw: string | Uint8Array; readonly headers?: Readonly<Record<string, string>> };

/** The hosted data layer API of one account and profile, called with one v1 session. */
export class DataLayerApi {
  constructor(
    private readonly ctx: ScenarioContext,
    public session: V1Session,
    readonly account: string = ctx.fixtures.account,
    readonly profile: string = ctx.fixtures.profile,
  ) {}

  /** Logs in as `user` (the fixtures' user by default) for `account`/`profile`. */
  static async open(
    ctx: ScenarioContext,
    options: { user?: { email: string; password: string }; account?: string; profile?: string } = {},
  ): Promise<DataLayerApi> {
    return new DataLayerApi(
      ctx,
      await loginV1(ctx, options.user ?? ctx.fixtures.user),
      options.account,
      options.profile,
    );
  }

  /** A new session for the same user, after the virtual clock moved past the session's idle limit. */
  async relogin(user: { email: string; password: string } = this.ctx.fixtures.user): Promise<void> {
    this.session = await loginV1(this.ctx, user);
  }

  /** The path of the list, or of one data layer (`dlId` is percent-encoded unless `raw`). */
  path(dlId?: string, options: { raw?: boolean } = {}): string {
    const base = `/v1/dle/accounts/${encodeURIComponent(this.account)}/profiles/${encodeURIComponent(this.profile)}/datalayers`;
    if (dlId === undefined) return base;
    return `${base}/${options.raw ? dlId : encodeURIComponent(dlId)}`;
  }

  private options(extra: RequestOptions = {}): RequestOptions {
    return {
      ...extra,
      query: { ...this.session.query, ...extra.query },
      headers: { ...this.session.headers, ...extra.headers },
    };
  }

  private bodyOptions(body: Body): RequestOptions {
    if ("json" in body)
      return this.options({ body: JSON.stringify(body.json), headers: { "content-type": "application/json" } });
    return this.options({ body: body.raw, headers: { ...body.headers } });
  }

  upload(dlId: string, body: Body, options: { raw?: boolean } = {}): Promise<HttpAnswer> {
    return this.ctx.base.post(this.path(dlId, options), this.bodyOptions(body));
  }

  update(dlId: string, body: Body): Promise<HttpAnswer> {
    return this.ctx.base.put(this.path(dlId), this.bodyOptions(body));
  }

  remove(dlId: string): Promise<HttpAnswer> {
    return this.ctx.base.delete(this.path(dlId), this.options());
  }

  status(dlId: string, options: { raw?: boolean } = {}): Promise<HttpAnswer> {
    return this.ctx.base.get(this.path(dlId, options), this.options());
  }

  list(): Promise<HttpAnswer> {
    return this.ctx.base.get(this.path(), this.options());
  }

  /** DEC-DLE-07: the served form, without credentials. */
  served(dlId: string, format: "json" | "js"): Promise<HttpAnswer> {
    return this.ctx.base.get(
      `/dle/${encodeURIComponent(this.account)}/${encodeURIComponent(this.profile)}/${encodeURIComponent(dlId)}.${format}`,
    );
  }

  /** Uploads `json` and expects 201 pending. */
  async uploaded(dlId: string, json: unknown): Promise<void> {
    expectPending(await this.upload(dlId, { json }), 201);
  }

  /**
   * Deletes each data layer that still exists (best effort: answers and failures are not judged), so a target's
   * list does not grow run after run. Sent through the cleanup client, 25 at a time: it still runs after the
   * scenario was abandoned at its time limit, from a `finally`.
   */
  async cleanUp(dlIds: readonly string[]): Promise<void> {
    for (let start = 0; start < dlIds.length; start += 25) {
      await Promise.all(
        dlIds
          .slice(start, start + 25)
          .map((dlId) => this.ctx.cleanupBase.delete(this.path(dlId), this.options()).catch(() => undefined)),
      );
    }
  }
}

/** DLE-01..03: `{status: "pending"}` with the status given. */
export function expectPending(answer: HttpAnswer, status: 200 | 201): void {
  expectStatus(answer, status);
  expectHeader(answer, "content-type", /^application\/json\b/);
  expectEqual(answer.json(), { status: "pending" }, "body", answer);
}

/** DLE-ERR-*: 400 1400 with the data layer wording. */
export function expectInvalid(answer: HttpAnswer, what: string): void {
  try {
    expectErrorBody(answer, 400, 1400, invalidRequestMessage);
  } catch (error) {
    throw error instanceof ScenarioFailure ? new ScenarioFailure(`${what}: ${error.message}`) : error;
  }
}

/** DLE-04: the status answered for a data layer. */
export async function statusOf(api: DataLayerApi, dlId: string): Promise<string> {
  const answer = await api.status(dlId);
  expectStatus(answer, 200);
  const status = jsonObject(answer).status;
  expectTrue(
    status === "pending" || status === "completed" || status === "failed",
    "status must be pending, completed or failed",
    answer,
  );
  return status as string;
}

/**
 * Moves the test clock past every pending change's delay (DEC-DLE-06: the longest delay of the timing
 * preset the clock names, with room to spare) and waits for the publisher (DEC-OPS-04). A move of 30 minutes or
 * more ends idle sessions (DEC-SES-02), so the APIs given log in again after it.
 */
export async function publishPending(ctx: ScenarioContext, ...apis: DataLayerApi[]): Promise<void> {
  const short = isShortTiming((await readClock(ctx)).timing);
  await advanceClock(ctx, short ? "5s" : "61m");
  await waitForBackgroundWork(ctx);
  if (!short) for (const api of apis) await api.relogin();
}

/** A JSON object nested exactly `levels` deep (DEC-DLE-03: the top object is level 1, an array is a level). */
export function nestedBody(levels: number): string {
  let text = '{"leaf":true}';
  // Wrap from the inside out; odd levels are objects (so the top, level 1, is one), even levels arrays.
  for (let level = levels - 1; level >= 1; level -= 1) text = level % 2 === 1 ? `{"k":${text}}` : `[${text}]`;
  return text;
}
