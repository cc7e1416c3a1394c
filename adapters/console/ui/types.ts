/**
 * The shapes of the admin API's answers that the console reads (see docs/console.md and /openapi.json). Those the
 * core answers as they are come from the core (types only: nothing of it is bundled); the others are the HTTP
 * views, with times in ISO 8601.
 */
import type { CollectedRequest } from "../../../core/collect/index.ts";
import type { EngineAnswerView, InspectedVisitor, ProfileChange, ProfileView } from "../../../core/inspect/index.ts";
import type { Violation } from "../../../core/ports/index.ts";
import type { PrecedenceRow, VisitorIdDecision } from "../../../core/visitors/index.ts";

export type { CollectedRequest, PrecedenceRow, ProfileChange, ProfileView, Violation };
export type Decision = VisitorIdDecision;
export type EngineAnswer = EngineAnswerView;

export interface Tenant {
  readonly name: string;
  readonly profiles: readonly string[];
}

export interface Clock {
  readonly now: string;
  readonly nowMs: number;
  readonly offsetMs: number;
  readonly timing: string;
}

export interface StoredEvent {
  readonly seq: number;
  readonly account: string;
  readonly profile: string;
  readonly visitorId: string;
  readonly visitorIdSource: string;
  readonly thirdPartyVisitorId: string | null;
  readonly firstPartyVisitorId: string | null;
  readonly event: string | null;
  readonly datasource: string | null;
  readonly traceId: string | null;
  readonly receivedAt: string;
  readonly receivedAtMs: number;
  readonly data: Readonly<Record<string, unknown>>;
  /** The tracking plan's verdict (docs/configuration.md, Tracking plan). */
  readonly verdict: "valid" | "invalid" | "none";
  readonly violations: readonly Violation[];
}

export interface EventPage {
  readonly events: readonly StoredEvent[];
  readonly nextAfterSeq: number | null;
  readonly nextBeforeSeq: number | null;
}

/** One outcome of the collection endpoint, as the live feed and the journal give it. */
export interface JournalEntry {
  readonly id: number;
  readonly at: string;
  readonly atMs: number;
  readonly outcome: "stored" | "refused" | "bot";
  readonly method: string;
  readonly account: string | null;
  readonly profile: string | null;
  readonly event: string | null;
  readonly traceId: string | null;
  readonly userAgent: string | null;
  readonly visitorId?: string | null;
  readonly status?: number;
  readonly reason?: string;
  readonly xError?: string;
  readonly data?: Readonly<Record<string, unknown>>;
  readonly decision?: Decision;
}

export interface JournalPage {
  readonly entries: readonly JournalEntry[];
  readonly lastId: number;
}

export interface Named {
  readonly id: number | string;
  readonly name: string;
}

export interface EventExplanation {
  readonly event: StoredEvent;
  readonly decision: Decision;
  readonly decisionKnown: "journal" | "stored";
  readonly request: CollectedRequest | null;
  readonly profileChanges: {
    readonly visitorId: string;
    readonly before: ProfileView | null;
    readonly after: ProfileView;
    readonly changes: readonly ProfileChange[];
  } | null;
}

/** The core's visitor, with its events as the HTTP view shows them. */
export type VisitorLookup = Omit<InspectedVisitor, "events"> & { readonly events: readonly StoredEvent[] };

export interface DataLayerView {
  readonly dlId: string;
  readonly exists: boolean;
  readonly newest: {
    readonly seq: number;
    readonly kind: string;
    readonly state: string;
    readonly acceptedAt: string;
    readonly dueAt: string;
    readonly settledAt: string | null;
    readonly attempts: number;
  };
  readonly served: {
    readonly seq: number;
    readonly publishedAt: string;
    readonly bytes: number;
    readonly preview: string;
    readonly truncated: boolean;
  } | null;
  readonly servedUrl: string | null;
}

export type Row = Readonly<Record<string, unknown>>;
