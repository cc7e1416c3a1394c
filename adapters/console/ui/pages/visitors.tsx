/** A visitor looked up by visitor ID or by a visitor ID attribute: its profile, stitching, events and engines. */
import { useEffect, useState } from "preact/hooks";
import { call, queryOf, seg } from "../api.ts";
import { type Column, dateText, Empty, ErrorNote, Link, Pairs, Table, Time, textOf, Value } from "../components.tsx";
import { base, navigate } from "../router.ts";
import type { EngineAnswer, Named, ProfileView, StoredEvent, Tenant, VisitorLookup } from "../types.ts";
import { type Picked, pickedOf, TenantPicker } from "./tenant-picker.tsx";

type By = "visitorId" | "attribute";

const eventColumns: readonly Column<StoredEvent>[] = [
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
  { title: "Event", cell: (event) => textOf(event.event) },
  { title: "Visitor ID", cell: (event) => <span class="id">{event.visitorId}</span> },
];

const engineColumns: readonly Column<EngineAnswer>[] = [
  { title: "Engine", cell: (engine) => `${engine.name} (${engine.id})` },
  { title: "Enabled", cell: (engine) => (engine.enabled ? "yes" : "no") },
  { title: "Status", cell: (engine) => engine.status },
  { title: "Note", cell: (engine) => textOf(engine.note) },
  { title: "Answer", cell: (engine) => <Value value={engine.answer} /> },
];

function NamedList(props: { caption: string; items: readonly Named[] }) {
  return (
    <Table
      caption={props.caption}
      columns={[{ title: "Name", cell: (item: Named) => `${item.name} (${textOf(item.id)})` }]}
      rows={props.items}
      keyOf={(item) => textOf(item.id)}
      empty="None."
    />
  );
}

function Profile(props: { profile: ProfileView }) {
  const { profile } = props;
  return (
    <>
      <Pairs
        caption="Built-ins"
        rows={[
          ["First seen", profile.firstSeen],
          ["Last seen", profile.lastSeen],
          ["Events", profile.eventCount],
          ["Visits", profile.visitCount],
        ]}
      />
      <Table
        caption="Attributes"
        columns={[
          { title: "Name", cell: (row: ProfileView["attributes"][number]) => `${row.name} (${textOf(row.id)})` },
          { title: "Type", cell: (row) => row.type },
          {
            title: "Value",
            cell: (row) => <Value value={row.type === "date" ? dateText(row.value) : row.value} />,
          },
        ]}
        rows={profile.attributes}
        keyOf={(row) => textOf(row.id)}
        empty="No attribute has a value."
      />
      <NamedList caption="Badges" items={profile.badges} />
      <NamedList caption="Audiences" items={profile.audiences} />
      <Table
        caption="Visitor ID attributes"
        columns={[
          { title: "Name", cell: (row: ProfileView["visitorIds"][number]) => `${row.name} (${textOf(row.id)})` },
          { title: "Value", cell: (row) => row.value },
        ]}
        rows={profile.visitorIds}
        keyOf={(row) => textOf(row.id)}
        empty="None captured."
      />
    </>
  );
}

export function VisitorsPage(props: { tenants: readonly Tenant[]; latest: Picked | null; query: URLSearchParams }) {
  const { query } = props;
  const picked = pickedOf(props.tenants, query, props.latest);
  const asked = {
    visitorId: query.get("visitorId") ?? "",
    attribute: query.get("attribute") ?? "",
    value: query.get("value") ?? "",
  };
  const [by, setBy] = useState<By>(asked.attribute ? "attribute" : "visitorId");
  const [visitorId, setVisitorId] = useState(asked.visitorId);
  const [attribute, setAttribute] = useState(asked.attribute || "email_address");
  const [value, setValue] = useState(asked.value);
  const [found, setFound] = useState<VisitorLookup | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const search = query.toString();

  useEffect(() => {
    setVisitorId(asked.visitorId);
    if (asked.attribute) setAttribute(asked.attribute);
    setValue(asked.value);
    setFound(null);
    setError(null);
    if (!picked || (!asked.visitorId && !asked.value)) return;
    setBusy(true);
    const form = asked.visitorId ? { visitorId: asked.visitorId } : { attribute: asked.attribute, value: asked.value };
    call<VisitorLookup>(
      `/admin/accounts/${seg(picked.account)}/profiles/${seg(picked.profile)}/visitors${queryOf(form)}`,
    )
      .then(setFound, setError)
      .finally(() => setBusy(false));
  }, [search, picked?.account, picked?.profile]);

  if (!picked)
    return (
      <section>
        <h1>Visitors</h1>
        <p role="status">Loading the accounts…</p>
      </section>
    );
  const go = (next: Picked, form: Record<string, string>) =>
    navigate(`${base}/visitors${queryOf({ account: next.account, profile: next.profile, ...form })}`);

  return (
    <section>
      <h1>Visitors</h1>
      <form
        class="lookup"
        aria-label="Look a visitor up"
        onSubmit={(event) => {
          event.preventDefault();
          go(picked, by === "visitorId" ? { visitorId: visitorId.trim() } : { attribute: attribute.trim(), value });
        }}
      >
        <TenantPicker idPrefix="v" tenants={props.tenants} picked={picked} onPick={(next) => go(next, {})} />
        <fieldset>
          <legend>Look up by</legend>
          <label class="inline">
            <input
              type="radio"
              name="by"
              value="visitorId"
              checked={by === "visitorId"}
              onChange={() => setBy("visitorId")}
            />
            Visitor ID
          </label>
          <label class="inline">
            <input
              type="radio"
              name="by"
              value="attribute"
              checked={by === "attribute"}
              onChange={() => setBy("attribute")}
            />
            Visitor ID attribute (e-mail, customer id…)
          </label>
        </fieldset>
        {by === "visitorId" ? (
          <div class="field">
            <label for="v-visitor">Visitor ID</label>
            <input id="v-visitor" required value={visitorId} onInput={(e) => setVisitorId(e.currentTarget.value)} />
          </div>
        ) : (
          <>
            <div class="field">
              <label for="v-attribute">Attribute (name or id)</label>
              <input id="v-attribute" required value={attribute} onInput={(e) => setAttribute(e.currentTarget.value)} />
            </div>
            <div class="field">
              <label for="v-value">Value</label>
              <input id="v-value" required value={value} onInput={(e) => setValue(e.currentTarget.value)} />
            </div>
          </>
        )}
        <button type="submit" disabled={busy}>
          Look up
        </button>
      </form>
      <ErrorNote error={error} />
      {busy ? <p role="status">Looking up…</p> : null}
      {found ? (
        <article aria-label="The visitor">
          <h2>
            Visitor <span class="id">{found.visitorId}</span>
          </h2>
          <Pairs
            caption="Stitching and visits"
            rows={[
              ["Stitched visitor IDs", found.members.join("\n")],
              ["Visits", found.visits.count],
              ["Current visit started", found.visits.current.startedAt],
              ["Current visit open", found.visits.current.open],
            ]}
          />
          <Profile profile={found.profile} />
          <h2>What each engine answers</h2>
          <Table
            caption="The visitor-data API, engine by engine"
            columns={engineColumns}
            rows={found.engines}
            keyOf={(engine) => engine.id}
            empty="This profile has no engine."
          />
          <h2>Events</h2>
          {found.events.length === 0 ? (
            <Empty>No stored event.</Empty>
          ) : (
            <Table
              caption="The latest events of the stitched visitors"
              columns={eventColumns}
              rows={found.events}
              keyOf={(event) => event.seq}
              empty="—"
            />
          )}
        </article>
      ) : null}
    </section>
  );
}
