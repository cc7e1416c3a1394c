/** The shapes of the admin API's answers that the console reads (see docs/console.md and /openapi.json). */

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
}

export interface EventPage {
  readonly events: readonly StoredEvent[];
  readonly nextAfterSeq: number | null;
  readonly nextBeforeSeq: number | null;
}

export interface PrecedenceRow {
  readonly source: string;
  readonly clauses?: readonly string[];
  readonly value: string | null;
  readonly chosen: boolean;
  /** False in a decision rebuilt from a stored event, for an input the event does not keep. */
  readonly known?: boolean;
}

export interface Decision {
  readonly source: string;
  readonly precedence: readonly PrecedenceRow[];
  readonly skipTapid?: boolean;
  readonly deleteTapid?: boolean;
  readonly tapidCookie: string | null;
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

export interface ProfileView {
  readonly firstSeen: string;
  readonly lastSeen: string;
  readonly eventCount: number;
  readonly visitCount: number;
  readonly attributes: ReadonlyArray<Named & { readonly type: string; readonly value: unknown }>;
  readonly badges: readonly Named[];
  readonly audiences: readonly Named[];
  readonly visitorIds: ReadonlyArray<Named & { readonly value: string }>;
}

export interface ProfileChange {
  readonly kind: string;
  readonly id: number | string;
  readonly name: string;
  readonly from: unknown;
  readonly to: unknown;
}

export interface EventExplanation {
  readonly event: StoredEvent;
  readonly decision: Decision;
  readonly decisionKnown: "journal" | "stored";
  readonly profileChanges: {
    readonly visitorId: string;
    readonly before: ProfileView | null;
    readonly after: ProfileView;
    readonly changes: readonly ProfileChange[];
  } | null;
}

export interface EngineAnswer {
  readonly id: string;
  readonly name: string;
  readonly enabled: boolean;
  readonly answer: unknown;
  readonly status: number;
  readonly note: string | null;
}

export interface VisitorLookup {
  readonly visitorId: string;
  readonly members: readonly string[];
  readonly profile: ProfileView;
  readonly visits: { readonly count: number; readonly current: { readonly startedAt: string; readonly open: boolean } };
  readonly events: readonly StoredEvent[];
  readonly engines: readonly EngineAnswer[];
}

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
