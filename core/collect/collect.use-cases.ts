import type { Limits } from "../config/config.model.ts";
import { type CollectError, collectError } from "../errors/collect.errors.ts";
import { describeError } from "../errors/describe-error.ts";
import type { BotFilter } from "../ports/bot-filter.port.ts";
import type { CollectMethod, IncomingCollectRequest } from "../ports/collect-request.port.ts";
import type {
  Clock,
  CollectedEvent,
  EventLoop,
  EventQuery,
  IdSource,
  Logger,
  StoredEvent,
  Stores,
  VerdictCount,
  VerdictCountQuery,
} from "../ports/index.ts";
import { err, ok, type Result } from "../result.ts";
import { isStorableText } from "../values/storable-text.rules.ts";
import { identifyVisitor } from "../visitors/visitor-id.rules.ts";
import { type EventParams, parseEventBody, readCollectRequest } from "./collect.rules.ts";
import { CollectJournal } from "./collect-journal.ts";
import { CollectStats } from "./collect-stats.ts";
import { describeCollectedEvent } from "./event.rules.ts";
import { GroupCommitWriter } from "./group-commit.ts";
import { rawQueryOf, readQueryString } from "./query-string.rules.ts";
import { RateExchanger } from "./rate-exchange.use-cases.ts";
import { sourceOfAddress } from "./rate-limit.rules.ts";
import { CollectRateLimiter } from "./rate-limiter.ts";
import { TenantDirectory } from "./tenant-directory.ts";

export interface CollectServiceDeps {
  readonly stores: Stores;
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly logger: Logger;
  readonly limits: Limits;
  /** DEC-COL-06: the crawler verdict on a User-Agent. */
  readonly bots: BotFilter;
  /** A turn of the loop before each group commit (GroupCommitWriter), and the age of the tenants read. */
  readonly eventLoop: EventLoop;
  /** Told after every commit, so that the profile worker picks the new events up at once. */
  readonly onCommitted?: () => void;
  /** Told of every group commit that succeeded: its size and how long it took (the service's metrics, issue 33). */
  readonly observeCommit?: (events: number, ms: number) => void;
  /** Groups of events committing at once (GroupCommitWriter's inFlight; default 1). */
  readonly commitsInFlight?: number;
  /** Where every outcome is recorded (the console's live feed); default: a journal of the default size. */
  readonly journal?: CollectJournal;
}

export interface CollectOutcome {
  /** False for a filtered bot: answered as a success, not stored (DEC-COL-06). */
  readonly stored: boolean;
  /** The TAPID Set-Cookie header of the answer, if any (DEC-COL-10). */
  readonly setCookie: string | null;
}

/**
 * The WHATWG text decoder, which every host of the core provides (Bun, Deno, Node, browsers) though ES2023
 * does not define it. Declared here with only what the core uses of it, so that the core type-checks without
 * DOM or runtime types (core/tsconfig.json). The body is decoded here rather than in the HTTP adapter so
 * that the order of a body's refusals (not UTF-8, then the media type, then the JSON) stays in one place.
 */
declare const TextDecoder: new (
  label: "utf-8",
  options: { readonly fatal: boolean },
) => { decode(bytes: Uint8Array): string };

const acceptedMediaTypes: ReadonlySet<string> = new Set(["application/json", "text/plain"]);
const utf8 = new TextDecoder("utf-8", { fatal: true });

function mediaTypeOf(contentType: string | null): string {
  const end = contentType?.indexOf(";") ?? -1;
  return (end < 0 ? (contentType ?? "") : (contentType ?? "").slice(0, end)).trim().toLowerCase();
}

function hint(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value.slice(0, 300) : null;
}

/** What a request that was not stored says of itself: svc_account, svc_profile, svc_event and svc_trace_id, the body first. */
function hintsOf(query: ReadonlyArray<readonly [string, string]>, body: EventParams | null) {
  const from = (name: string) => hint(body?.[name]) ?? hint(query.find(([key]) => key === name)?.[1]);
  return {
    account: from("svc_account"),
    profile: from("svc_profile"),
    event: from("svc_event"),
    traceId: from("svc_trace_id"),
  };
}

/**
 * The collection use-case (COL-*, VID-*, DEC-COL-*): filter bots, read and check the request, keep to the
 * rate limit, resolve the visitor, commit the event (group commit) and say what the answer carries.
 * Per process: the rate-limit windows, the sources' shares and byte budgets, the counters and the journal of the
 * latest outcomes live in memory (docs/decisions.md, Collection); the account's limit is shared with the other processes on the store through
 * `exchangeRates`, which the host calls every `limits.collectRateExchangeMs`.
 */
export class CollectService {
  readonly stats = new CollectStats();
  /** Every outcome, stored, refused or a filtered bot (the console's live feed, SVC_PRINT_EVENTS). */
  readonly journal: CollectJournal;
  readonly directory: TenantDirectory;
  private readonly writer: GroupCommitWriter<CollectedEvent>;
  private readonly rates: CollectRateLimiter;
  private readonly exchanger: RateExchanger;

  constructor(private readonly deps: CollectServiceDeps) {
    this.journal = deps.journal ?? new CollectJournal();
    this.rates = new CollectRateLimiter({
      eventsPerSecond: deps.limits.collectEventsPerSecond,
      bytesPerSourcePerSecond: deps.limits.collectBytesPerSourcePerSecond,
    });
    this.exchanger = new RateExchanger(this.rates, {
      store: deps.stores.rateCounts,
      clock: deps.clock,
      node: deps.ids.randomHex(16),
      logger: deps.logger,
      eventLoop: deps.eventLoop,
      everyMs: deps.limits.collectRateExchangeMs,
    });
    this.directory = new TenantDirectory(deps.stores.tenancy, () => deps.eventLoop.monotonicMs());
    this.writer = new GroupCommitWriter((events) => this.commit(events), {
      gather: () => deps.eventLoop.nextTurn(),
      inFlight: deps.commitsInFlight ?? 1,
    });
  }

  /**
   * The stored events a query selects, as the admin API shows them (GET /admin/events). Text no store keeps
   * names no event (decisions of our own, "Text that a store cannot keep"): a filter holding it selects none.
   */
  async storedEvents(query: EventQuery): Promise<StoredEvent[]> {
    const { account, profile, visitorId, visitorIds = [], event, traceId } = query;
    const named = [account, profile, visitorId, ...visitorIds, event, traceId];
    if (named.some((text) => text !== undefined && !isStorableText(text))) return [];
    return this.deps.stores.events.query(query);
  }

  /** Issue 43: the tracking plan's verdicts of the stored events a query selects, counted by event name. */
  async verdictCounts(query: VerdictCountQuery): Promise<VerdictCount[]> {
    const { account, profile, event } = query;
    if ([account, profile, event].some((text) => text !== undefined && !isStorableText(text))) return [];
    return this.deps.stores.events.countVerdicts(query);
  }

  /** One request to the collection endpoint: stored, answered as a filtered bot, or refused (kept in `stats`). */
  async collect(request: IncomingCollectRequest): Promise<Result<CollectOutcome, CollectError>> {
    const { method, headers } = request;
    const queryString = readQueryString(request.url);
    const query = queryString.pairs;
    const userAgent = headers.get("user-agent");
    if (this.deps.bots.isBot(userAgent)) {
      this.stats.filteredBots += 1;
      // The query string's hints only: a bot's body is never read.
      this.journal.record({
        at: this.deps.clock.now(),
        outcome: "bot",
        method,
        ...hintsOf(query, null),
        userAgent,
      });
      return ok({ stored: false, setCookie: null });
    }
    let body: EventParams | null = null;
    let bodyBytes = 0;
    let bodyText: string | null = null;
    if (method === "POST") {
      const read = await this.readBody(request);
      if (!read.ok) return this.refuse(read.error, method, userAgent, query, null);
      body = read.value.params;
      bodyBytes = read.value.bytes;
      bodyText = read.value.text;
    }
    const tenants = await this.directory.snapshot();
    const checked = readCollectRequest({
      method,
      query,
      body,
      referer: headers.get("referer"),
      cookieHeader: headers.get("cookie"),
      isKnownProfile: tenants.isKnownProfile,
    });
    if (!checked.ok) return this.refuse(checked.error, method, userAgent, query, body);
    const collected = checked.value;

    const now = this.deps.clock.now();
    const bytes = bodyBytes + queryString.length;
    const decision = this.rates.admit({
      account: collected.account,
      source: sourceOfAddress(request.address),
      bytes,
      now,
    });
    if (this.rates.hasUnreadAccounts()) this.exchanger.exchangeEarly();
    if (decision !== "admitted") return this.refuse(collectError("rateLimited"), method, userAgent, query, body);

    const identity = identifyVisitor(collected.visitor, this.deps.ids);
    const visitorIdAttributes = tenants.visitorIdAttributesOf(collected.account, collected.profile);
    const event = describeCollectedEvent(collected, identity, now, visitorIdAttributes);
    try {
      await this.writer.write(event);
    } catch {
      return this.refuse(collectError("storageUnavailable"), method, userAgent, query, body);
    }
    this.stats.accepted += 1;
    const cookie = collected.cookies.sent;
    const referer = headers.get("referer");
    const received = {
      method,
      query: rawQueryOf(request.url),
      contentType: method === "POST" ? headers.get("content-type") : null,
      body: bodyText,
      cookie,
      referer,
      userAgent,
    };
    // Only now, committed: the journal shows what was stored.
    this.journal.record(
      {
        at: now,
        outcome: "stored",
        method,
        account: event.account,
        profile: event.profile,
        event: event.event,
        traceId: event.traceId,
        visitorId: event.visitorId,
        userAgent,
        data: event.data,
        decision: identity.decision,
        request: received,
      },
      // The request is kept twice: parsed (data) and as received.
      2 * bytes + (cookie?.length ?? 0) + (referer?.length ?? 0),
    );
    return ok({ stored: true, setCookie: identity.setCookie });
  }

  /**
   * COL-15, DEC-COL-07 across nodes: gives the store this node's counts of the accounts it collects for, and reads
   * the other nodes' (RateExchanger). The host calls it every `limits.collectRateExchangeMs`; it never throws.
   */
  exchangeRates(): Promise<void> {
    return this.exchanger.exchange();
  }

  /** Resolves once every event handed to the writer so far is committed or refused. */
  settled(): Promise<void> {
    return this.writer.settled();
  }

  /**
   * svc-hub's own admin API (POST /admin/reset), once no event is waiting for its commit (`settled`): the rate
   * windows, the counters, the journal and the tenants read are forgotten, as a fresh start has none of them.
   */
  forget(): void {
    this.rates.forget();
    this.stats.clear();
    this.journal.clear();
    this.directory.refresh();
  }

  commitStats() {
    return this.writer.stats();
  }

  /**
   * DEC-COL-04: JSON as application/json or text/plain (sendBeacon), gzip allowed; an empty body is null.
   * With the body's size once decompressed (what the byte budget counts).
   */
  private async readBody(
    request: IncomingCollectRequest,
  ): Promise<Result<{ params: EventParams | null; bytes: number; text: string }, CollectError>> {
    const read = await request.readBody(this.deps.limits.maxBodyBytes);
    if (!read.ok) return read;
    const bytes = read.value.byteLength;
    if (bytes === 0) return ok({ params: null, bytes, text: "" });
    let text: string;
    try {
      text = utf8.decode(read.value);
    } catch {
      return err(collectError("invalidJson"));
    }
    if (text.trim() === "") return ok({ params: null, bytes, text });
    if (!acceptedMediaTypes.has(mediaTypeOf(request.headers.get("content-type"))))
      return err(collectError("unsupportedContentType"));
    const params = parseEventBody(text);
    return params.ok ? ok({ params: params.value, bytes, text }) : params;
  }

  private async commit(events: readonly CollectedEvent[]): Promise<void> {
    const started = this.deps.eventLoop.monotonicMs();
    try {
      await this.deps.stores.events.append(events);
      const ms = this.deps.eventLoop.monotonicMs() - started;
      this.deps.observeCommit?.(events.length, ms);
      this.deps.logger.debug("events committed", { events: events.length, ms: Math.round(ms * 100) / 100 });
      this.deps.onCommitted?.();
    } catch (error) {
      this.deps.logger.warn("event commit failed", { events: events.length, error: describeError(error) });
      throw error;
    }
  }

  private refuse(
    error: CollectError,
    method: CollectMethod,
    userAgent: string | null,
    query: ReadonlyArray<readonly [string, string]>,
    body: EventParams | null,
  ): Result<never, CollectError> {
    const at = this.deps.clock.now();
    const { account, profile, event, traceId } = hintsOf(query, body);
    this.stats.recordRejection({
      at: new Date(at).toISOString(),
      method,
      status: error.status,
      reason: error.code,
      xError: error.xError,
      account,
      profile,
      traceId,
      userAgent,
    });
    this.journal.record({
      at,
      outcome: "refused",
      method,
      status: error.status,
      reason: error.code,
      xError: error.xError,
      account,
      profile,
      event,
      traceId,
      userAgent,
    });
    return err(error);
  }
}
