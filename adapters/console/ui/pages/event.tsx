/** One stored event: its parameters, the visitor ID chosen and the rule that chose it, and what it changed. */
import { useEffect, useRef, useState } from "preact/hooks";
import { call, queryOf } from "../api.ts";
import { type Column, dateText, Empty, ErrorNote, Link, Pairs, Table, textOf } from "../components.tsx";
import { curlCommandOf } from "../curl.ts";
import { base } from "../router.ts";
import type {
  CollectedRequest,
  EventExplanation,
  PrecedenceRow,
  ProfileChange,
  StoredEvent,
  Violation,
} from "../types.ts";

const ruleNames: Record<string, string> = {
  override: "svc_override_tapid (the override)",
  tapid: "the TAPID cookie's entry for this account and profile",
  visitor_id: "svc_visitor_id",
  first_party: "the first-party visitor ID (svc_firstparty_visitor_id or the utag_main cookie's v_id)",
  new: "none of them: a new visitor ID",
};

export function ruleName(source: string): string {
  return ruleNames[source] ?? source;
}

const precedenceColumns: readonly Column<PrecedenceRow>[] = [
  { title: "Source, in precedence order", cell: (row) => ruleName(row.source) },
  { title: "Clauses", cell: (row) => (row.clauses ?? []).join(", ") },
  {
    title: "Value in the request",
    cell: (row) =>
      row.value !== null ? row.value : <span class="muted">{row.known === false ? "not known" : "none"}</span>,
  },
  { title: "Chosen", cell: (row) => (row.chosen ? <strong>chosen</strong> : "") },
];

/** The built-ins that are times (DEC-PRO-01), answered in epoch milliseconds as date attributes are. */
const builtinDates = new Set(["first_visit", "last_visit"]);

/** A profile change's columns: a date's values (a date attribute, a visit time) in ISO 8601. */
function changeColumnsOf(dateAttributes: ReadonlySet<number | string>): readonly Column<ProfileChange>[] {
  const isDate = (change: ProfileChange) =>
    change.kind === "builtin" ? builtinDates.has(String(change.id)) : dateAttributes.has(change.id);
  const shown = (change: ProfileChange, value: ProfileChange["from"]) =>
    textOf(isDate(change) ? dateText(value) : value);
  return [
    { title: "What", cell: (change) => change.kind },
    { title: "Name", cell: (change) => `${change.name} (${textOf(change.id)})` },
    { title: "Before", cell: (change) => shown(change, change.from) },
    { title: "After", cell: (change) => shown(change, change.to) },
  ];
}

/**
 * A block of text with a button that copies it. The clipboard API needs a secure context (HTTPS or localhost);
 * elsewhere the text is selected and copied the older way.
 */
function Copyable(props: { id: string; title: string; text: string }) {
  const block = useRef<HTMLPreElement>(null);
  const [said, setSaid] = useState("");
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.text);
      setSaid("Copied.");
    } catch {
      const range = document.createRange();
      if (block.current) range.selectNodeContents(block.current);
      getSelection()?.removeAllRanges();
      getSelection()?.addRange(range);
      setSaid(document.execCommand("copy") ? "Copied." : "Selected: copy it with the keyboard.");
    }
  };
  return (
    <div class="copyable">
      <h3>{props.title}</h3>
      <pre id={props.id} ref={block}>
        {props.text}
      </pre>
      <button type="button" class="quiet" onClick={copy}>
        Copy {props.title.toLowerCase()}
      </button>{" "}
      <span role="status">{said}</span>
    </div>
  );
}

function RawRequest(props: { request: CollectedRequest | null }) {
  if (!props.request) {
    return (
      <Empty>
        This node no longer holds the request as it was received (it keeps its latest 1,000), or another node received
        it.
      </Empty>
    );
  }
  return (
    <>
      <Copyable id="request-json" title="Request as JSON" text={JSON.stringify(props.request, null, 2)} />
      <Copyable id="request-curl" title="Curl command" text={curlCommandOf(props.request, window.location.origin)} />
    </>
  );
}

const violationColumns: readonly Column<Violation>[] = [
  {
    title: "Parameter",
    cell: (violation) => (
      <span class="id">{violation.path === "" ? "(the event)" : violation.parameter + nestedPart(violation)}</span>
    ),
  },
  { title: "Rule", cell: (violation) => violation.rule },
  {
    title: "Value",
    cell: (violation) => ("value" in violation ? textOf(violation.value) : <span class="muted">(missing)</span>),
  },
  { title: "Message", cell: (violation) => violation.message },
];

/** Where in a parameter a nested violation is (`/0/sku` of `items`); nothing for the parameter itself. */
function nestedPart(violation: Violation): string {
  const own = `/${violation.parameter.replaceAll("~", "~0").replaceAll("/", "~1")}`;
  return violation.path.startsWith(own) ? violation.path.slice(own.length) : "";
}

/** Issue 43: the verdict in words (docs/configuration.md, Tracking plan). */
function verdictText(event: StoredEvent): string {
  if (event.verdict === "valid") return "valid: fits the tracking plan";
  if (event.verdict === "none") return "none: no schema of the tracking plan applies";
  const count = event.violations.length;
  return `invalid: ${count} violation${count === 1 ? "" : "s"}`;
}

export function EventPage(props: { seq: number }) {
  const [explained, setExplained] = useState<EventExplanation | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    setExplained(null);
    setError(null);
    call<EventExplanation>(`/admin/events/${props.seq}`).then(setExplained, setError);
  }, [props.seq]);

  if (error) {
    return (
      <section>
        <h1>Event {props.seq}</h1>
        <ErrorNote error={error} />
      </section>
    );
  }
  if (!explained) {
    return (
      <section>
        <h1>Event {props.seq}</h1>
        <p role="status">Loading…</p>
      </section>
    );
  }
  const { event, decision, profileChanges } = explained;
  const visitorLink = `${base}/visitors${queryOf({ account: event.account, profile: event.profile, visitorId: event.visitorId })}`;
  return (
    <section>
      <h1>Event {event.seq}</h1>
      <Pairs
        caption="The event"
        rows={[
          ["Account / profile", `${event.account} / ${event.profile}`],
          ["Event name (svc_event)", event.event],
          ["Tracking plan", verdictText(event)],
          ["Received (virtual clock)", event.receivedAt],
          ["Data source", event.datasource],
          ["Trace id", event.traceId],
          ["Third-party visitor ID", event.thirdPartyVisitorId],
          ["First-party visitor ID", event.firstPartyVisitorId],
        ]}
      />
      {event.verdict === "invalid" ? (
        <Table
          caption="Violations of the tracking plan"
          columns={violationColumns}
          rows={event.violations}
          keyOf={(violation) => `${violation.path}:${violation.rule}:${violation.message}`}
          empty="—"
        />
      ) : null}
      <h2>Visitor ID</h2>
      <p class="decision">
        Visitor ID <span class="id">{event.visitorId}</span>, chosen by{" "}
        <strong class="rule">{ruleName(decision.source)}</strong>. <Link href={visitorLink}>See this visitor</Link>
      </p>
      <Table
        caption="The sources of the visitor ID (DEC-COL-09): the first with a value wins"
        columns={precedenceColumns}
        rows={decision.precedence}
        keyOf={(row) => row.source}
        empty="—"
        rowClass={(row) => (row.chosen ? "chosen" : undefined)}
      />
      <Pairs
        caption="The TAPID cookie"
        rows={[
          [
            "Set-Cookie of the answer",
            decision.tapidCookie ?? (explained.decisionKnown === "journal" ? "none" : "not known"),
          ],
          ["svc_skip_3rd_party_vid_cookies", decision.skipTapid ?? null],
          ["svc_delete_3rd_party_vid_cookies", decision.deleteTapid ?? null],
        ]}
      />
      {explained.decisionKnown === "stored" ? (
        <p class="hint">
          This node no longer holds the request itself (it keeps its latest 1,000), so the values come from the stored
          event and the cookie it answered is not known.
        </p>
      ) : null}
      <h2>Parameters</h2>
      <Pairs caption="Every stored parameter" rows={Object.entries(event.data)} />
      <h2>The request</h2>
      <p class="hint">
        As received: its query string, its body and the headers collection reads. The curl command sends it again.
      </p>
      <RawRequest request={explained.request} />
      <h2>Profile changes</h2>
      {profileChanges === null ? (
        <Empty>This event's profile has no visitor profile configuration.</Empty>
      ) : (
        <Table
          caption={`What this event changed in the profile of ${profileChanges.visitorId}`}
          columns={changeColumnsOf(
            new Set(
              [...(profileChanges.before?.attributes ?? []), ...profileChanges.after.attributes]
                .filter((attribute) => attribute.type === "date")
                .map((attribute) => attribute.id),
            ),
          )}
          rows={profileChanges.changes}
          keyOf={(change) => `${change.kind}:${change.id}`}
          empty="Nothing changed."
        />
      )}
    </section>
  );
}
