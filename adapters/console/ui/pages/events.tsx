/**
 * Events as they arrive: the stored events (read from the store, so also those of other nodes and of file
 * imports) and, apart, the requests this node refused and the bots it filtered, each with its reason. The
 * live feed says when to read again; a read every few seconds covers a feed that is down.
 */
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { call, queryOf } from "../api.ts";
import { type Column, ErrorNote, Link, Table, Time, textOf, VerdictBadge } from "../components.tsx";
import { type FeedState, followFeed } from "../live.ts";
import { base } from "../router.ts";
import type { EventPage, JournalEntry, StoredEvent, Tenant } from "../types.ts";

type Outcome = "all" | "stored" | "refused" | "bot";

interface Filters {
  readonly account: string;
  readonly profile: string;
  readonly visitor: string;
  readonly event: string;
  /** Text in a parameter's name or value (GET /admin/events?search=). */
  readonly search: string;
  readonly outcome: Outcome;
}

const noFilters: Filters = { account: "", profile: "", visitor: "", event: "", search: "", outcome: "all" };
const shown = 200;
const pollMs = 5_000;

function serverQuery(filters: Filters) {
  const { account, profile, visitor, event, search } = filters;
  return { account, profile, visitor, event, search };
}

function matches(entry: JournalEntry, filters: Filters): boolean {
  if (filters.outcome !== "all" && entry.outcome !== filters.outcome) return false;
  if (filters.account && entry.account !== filters.account) return false;
  if (filters.profile && entry.profile !== filters.profile) return false;
  if (filters.event && entry.event !== filters.event) return false;
  if (filters.visitor && entry.visitorId !== filters.visitor) return false;
  // A refusal keeps only the parameters that name it: the search looks at those.
  const hints = [entry.account, entry.profile, entry.event, entry.traceId];
  if (filters.search && !hints.some((hint) => hint?.includes(filters.search))) return false;
  return true;
}

const storedColumns: readonly Column<StoredEvent>[] = [
  {
    title: "Seq",
    cell: (event) => (
      <Link href={`${base}/events/${event.seq}`} label={`Event ${event.seq}`}>
        {event.seq}
      </Link>
    ),
    class: "num",
  },
  { title: "Received", cell: (event) => <Time iso={event.receivedAt} /> },
  { title: "Account / profile", cell: (event) => `${event.account} / ${event.profile}` },
  { title: "Event", cell: (event) => textOf(event.event) },
  {
    title: "Tracking plan",
    cell: (event) => <VerdictBadge verdict={event.verdict} violations={event.violations.length} />,
  },
  { title: "Visitor ID", cell: (event) => <span class="id">{event.visitorId}</span> },
  { title: "Chosen by", cell: (event) => event.visitorIdSource },
];

const otherColumns: readonly Column<JournalEntry>[] = [
  { title: "Time", cell: (entry) => <Time iso={entry.at} /> },
  { title: "Outcome", cell: (entry) => (entry.outcome === "bot" ? "filtered bot" : `refused ${entry.status ?? ""}`) },
  { title: "Reason", cell: (entry) => (entry.outcome === "bot" ? "User-Agent is a crawler" : textOf(entry.reason)) },
  { title: "X-Error", cell: (entry) => textOf(entry.xError) },
  {
    title: "Account / profile",
    cell: (entry) => (entry.account || entry.profile ? `${textOf(entry.account)} / ${textOf(entry.profile)}` : ""),
  },
  { title: "Event", cell: (entry) => textOf(entry.event) },
  { title: "User-Agent", cell: (entry) => <span class="ua">{textOf(entry.userAgent)}</span> },
];

export function EventsPage(props: { tenants: readonly Tenant[] }) {
  const [draft, setDraft] = useState<Filters>(noFilters);
  const [filters, setFilters] = useState<Filters>(noFilters);
  const [stored, setStored] = useState<readonly StoredEvent[]>([]);
  const [others, setOthers] = useState<readonly JournalEntry[]>([]);
  const [feed, setFeed] = useState<FeedState>("connecting");
  const [error, setError] = useState<unknown>(null);
  const newest = useRef(0);
  const reading = useRef<Promise<void> | null>(null);
  const again = useRef(false);

  // The stored events: the newest first; then, at each sign of news, those after the newest seen.
  useEffect(() => {
    const stop = new AbortController();
    newest.current = 0;
    setStored([]);
    const readNewer = async () => {
      const first = newest.current === 0;
      const page = await call<EventPage>(
        `/admin/events${queryOf({
          ...serverQuery(filters),
          ...(first ? { order: "desc", limit: shown } : { afterSeq: newest.current, order: "asc", limit: 1000 }),
        })}`,
        { signal: stop.signal },
      );
      const arrived = first ? page.events : [...page.events].reverse();
      if (arrived.length === 0) return;
      newest.current = Math.max(newest.current, ...arrived.map((event) => event.seq));
      setStored((known) => [...arrived, ...known].slice(0, shown));
    };
    // One read at a time; a sign during a read asks for one more after it.
    const read = () => {
      if (reading.current) {
        again.current = true;
        return;
      }
      reading.current = readNewer()
        .then(
          () => setError(null),
          (problem) => {
            if (!stop.signal.aborted) setError(problem);
          },
        )
        .finally(() => {
          reading.current = null;
          if (again.current && !stop.signal.aborted) {
            again.current = false;
            read();
          }
        });
    };
    read();
    const timer = setInterval(read, pollMs);
    followFeed(
      {
        entry: (entry) => {
          if (entry.outcome === "stored") read();
          else setOthers((known) => [entry, ...known].slice(0, shown));
        },
        state: setFeed,
      },
      stop.signal,
    );
    return () => {
      stop.abort();
      clearInterval(timer);
    };
  }, [filters.account, filters.profile, filters.visitor, filters.event, filters.search]);

  const shownOthers = useMemo(() => others.filter((entry) => matches(entry, filters)), [others, filters]);
  const profiles = props.tenants.find((tenant) => tenant.name === draft.account)?.profiles ?? [];
  const set = (change: Partial<Filters>) => setDraft((current) => ({ ...current, ...change }));

  return (
    <section>
      <h1>Events</h1>
      <p class="live" role="status" aria-live="polite">
        <span class={`dot dot-${feed}`} aria-hidden="true" />
        {feed === "live"
          ? "Live: new events appear as they arrive."
          : feed === "retrying"
            ? "Reconnecting…"
            : "Connecting…"}
      </p>
      <form
        class="filters"
        aria-label="Filter the events"
        onSubmit={(event) => {
          event.preventDefault();
          setFilters(draft);
        }}
      >
        <div class="field">
          <label for="f-account">Account</label>
          <select
            id="f-account"
            value={draft.account}
            onChange={(e) => set({ account: e.currentTarget.value, profile: "" })}
          >
            <option value="">Any</option>
            {props.tenants.map((tenant) => (
              <option key={tenant.name} value={tenant.name}>
                {tenant.name}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="f-profile">Profile</label>
          <select id="f-profile" value={draft.profile} onChange={(e) => set({ profile: e.currentTarget.value })}>
            <option value="">Any</option>
            {profiles.map((profile) => (
              <option key={profile} value={profile}>
                {profile}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="f-visitor">Visitor ID</label>
          <input id="f-visitor" value={draft.visitor} onInput={(e) => set({ visitor: e.currentTarget.value.trim() })} />
        </div>
        <div class="field">
          <label for="f-event">Event name</label>
          <input id="f-event" value={draft.event} onInput={(e) => set({ event: e.currentTarget.value.trim() })} />
        </div>
        <div class="field">
          <label for="f-search">Search parameters</label>
          <input
            id="f-search"
            type="search"
            aria-describedby="f-search-hint"
            value={draft.search}
            onInput={(e) => set({ search: e.currentTarget.value })}
          />
          <span class="hint" id="f-search-hint">
            A name or a value holds this text (case matters)
          </span>
        </div>
        <div class="field">
          <label for="f-outcome">Outcome</label>
          <select
            id="f-outcome"
            value={draft.outcome}
            onChange={(e) => set({ outcome: e.currentTarget.value as Outcome })}
          >
            <option value="all">All</option>
            <option value="stored">Stored</option>
            <option value="refused">Refused</option>
            <option value="bot">Filtered bots</option>
          </select>
        </div>
        <button type="submit">Apply</button>
        <button
          type="button"
          class="quiet"
          onClick={() => {
            setDraft(noFilters);
            setFilters(noFilters);
          }}
        >
          Clear
        </button>
      </form>
      <ErrorNote error={error} />
      {filters.outcome === "all" || filters.outcome === "stored" ? (
        <Table
          caption={`Stored events (newest first, the latest ${shown})`}
          columns={storedColumns}
          rows={stored}
          keyOf={(event) => event.seq}
          empty="No stored event matches yet."
        />
      ) : null}
      {filters.outcome !== "stored" ? (
        <Table
          caption="Refused requests and filtered bots (this node, since it started or was reset)"
          columns={otherColumns}
          rows={shownOthers}
          keyOf={(entry) => entry.id}
          empty="None yet."
          rowClass={(entry) => `outcome-${entry.outcome}`}
        />
      ) : null}
    </section>
  );
}
