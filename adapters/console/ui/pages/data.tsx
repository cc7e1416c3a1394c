/** Per profile: the data layers and what is served, the revisions and their files, file imports, privacy transactions. */
import { useCallback, useEffect, useState } from "preact/hooks";
import { call, download, queryOf, seg } from "../api.ts";
import { type Column, dateText, ErrorNote, StateBadge, Table, Time, textOf, Value } from "../components.tsx";
import { base, navigate } from "../router.ts";
import type { DataLayerView, Row, Tenant } from "../types.ts";
import { type Picked, pickedOf, TenantPicker } from "./tenant-picker.tsx";

const str = (row: Row, key: string) => textOf(row[key]);

function DataLayers(props: { rows: readonly DataLayerView[] }) {
  const columns: readonly Column<DataLayerView>[] = [
    { title: "Data layer", cell: (layer) => <span class="id">{layer.dlId}</span> },
    { title: "Newest change", cell: (layer) => `${layer.newest.kind} #${layer.newest.seq}` },
    { title: "State", cell: (layer) => <StateBadge state={layer.newest.state} /> },
    { title: "Accepted", cell: (layer) => <Time iso={layer.newest.acceptedAt} /> },
    { title: "Due", cell: (layer) => <Time iso={layer.newest.dueAt} /> },
    {
      title: "Served",
      cell: (layer) =>
        layer.served ? (
          <details>
            <summary>
              {layer.served.bytes} bytes, change #{layer.served.seq}
            </summary>
            {layer.servedUrl ? <p class="hint">{layer.servedUrl}</p> : null}
            <pre class="preview">{layer.served.preview}</pre>
            {layer.served.truncated ? <p class="hint">(the first 16 KiB)</p> : null}
          </details>
        ) : (
          <span class="muted">nothing served</span>
        ),
    },
  ];
  return (
    <Table
      caption="Data layers"
      columns={columns}
      rows={props.rows}
      keyOf={(layer) => layer.dlId}
      empty="No data layer yet."
    />
  );
}

function Revisions(props: { rows: readonly Row[]; onError: (error: unknown) => void }) {
  const columns: readonly Column<Row>[] = [
    { title: "Revision", cell: (row) => <span class="id">{str(row, "revisionId")}</span> },
    { title: "Created", cell: (row) => <Time iso={str(row, "createdAt")} /> },
    { title: "Files", cell: (row) => (Array.isArray(row.files) ? row.files.map(textOf).join(", ") : "") },
    {
      title: "Download",
      cell: (row) => (
        <button
          type="button"
          class="quiet"
          onClick={() =>
            download(str(row, "downloadUrl"), `revision-${str(row, "revisionId")}.zip`).catch(props.onError)
          }
        >
          Download revision {str(row, "revisionId")}
        </button>
      ),
    },
  ];
  return (
    <Table
      caption="Revisions (newest first)"
      columns={columns}
      rows={props.rows}
      keyOf={(row, i) => str(row, "revisionId") || i}
      empty="No revision yet."
    />
  );
}

/**
 * Every field a record has, but those shown as columns already. A time is shown in ISO 8601: the API answers
 * `createdAt` beside `createdAtMs`, the same time in epoch milliseconds, which is left out; a time it answers in
 * milliseconds alone (a number named `…At` or `…Ms`) is written in ISO 8601.
 */
function Rest(props: { row: Row; skip: readonly string[] }) {
  const rest = Object.entries(props.row)
    .filter(([key]) => !props.skip.includes(key) && !(key.endsWith("Ms") && key.slice(0, -2) in props.row))
    .map(([key, value]): [string, unknown] => [key, /(At|Ms)$/.test(key) ? dateText(value) : value]);
  if (rest.length === 0) return null;
  return (
    <details>
      <summary>All fields</summary>
      <dl class="fields">
        {rest.map(([key, value]) => (
          <div key={key}>
            <dt>{key}</dt>
            <dd>
              <Value value={value} />
            </dd>
          </div>
        ))}
      </dl>
    </details>
  );
}

function countsOf(row: Row): string {
  const counts = row.counts as { skipped?: number; failed?: number; succeeded?: number } | null | undefined;
  const parts = typeof row.rowsRead === "number" ? [`${row.rowsRead} rows read`] : [];
  if (counts)
    parts.push(`${counts.succeeded ?? 0} imported`, `${counts.failed ?? 0} failed`, `${counts.skipped ?? 0} skipped`);
  return parts.join(", ");
}

function Imports(props: { rows: readonly Row[] }) {
  const columns: readonly Column<Row>[] = [
    { title: "File", cell: (row) => <span class="id">{str(row, "name")}</span> },
    { title: "State", cell: (row) => <StateBadge state={str(row, "state")} /> },
    { title: "Accepted", cell: (row) => <Time iso={str(row, "createdAt")} /> },
    { title: "Counters", cell: countsOf },
    { title: "Failure", cell: (row) => str(row, "failureMessage") },
    { title: "Details", cell: (row) => <Rest row={row} skip={["name", "state", "createdAt", "failureMessage"]} /> },
  ];
  return (
    <Table
      caption="Imported files (newest first)"
      columns={columns}
      rows={props.rows}
      keyOf={(row, i) => str(row, "name") || i}
      empty="No file imported yet."
    />
  );
}

function Privacy(props: { rows: readonly Row[] }) {
  const columns: readonly Column<Row>[] = [
    { title: "Transaction", cell: (row) => <span class="id">{str(row, "transactionId")}</span> },
    { title: "Kind", cell: (row) => str(row, "kind") },
    { title: "State", cell: (row) => <StateBadge state={str(row, "state")} /> },
    { title: "Created", cell: (row) => <Time iso={str(row, "createdAt")} /> },
    { title: "Details", cell: (row) => <Rest row={row} skip={["transactionId", "kind", "state", "createdAt"]} /> },
  ];
  return (
    <Table
      caption="Privacy transactions (newest first)"
      columns={columns}
      rows={props.rows}
      keyOf={(row, i) => str(row, "transactionId") || i}
      empty="No privacy transaction yet."
    />
  );
}

interface Overview {
  readonly dataLayers: readonly DataLayerView[];
  readonly revisions: readonly Row[];
  readonly files: readonly Row[];
  readonly transactions: readonly Row[];
}

export function DataPage(props: { tenants: readonly Tenant[]; latest: Picked | null; query: URLSearchParams }) {
  const picked = pickedOf(props.tenants, props.query, props.latest);
  const [overview, setOverview] = useState<Overview | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const load = useCallback(async (target: Picked) => {
    setBusy(true);
    setError(null);
    const root = `/admin/accounts/${seg(target.account)}/profiles/${seg(target.profile)}`;
    try {
      const [layers, revisions, files, privacy] = await Promise.all([
        call<{ dataLayers: DataLayerView[] }>(`${root}/datalayers`),
        call<{ revisions: Row[] }>(`${root}/revisions`),
        call<{ files: Row[] }>(`${root}/files`),
        call<{ transactions: Row[] }>(`${root}/privacy/transactions`),
      ]);
      setOverview({
        dataLayers: layers.dataLayers,
        revisions: revisions.revisions,
        files: files.files,
        transactions: privacy.transactions,
      });
    } catch (problem) {
      setError(problem);
    } finally {
      setBusy(false);
    }
  }, []);
  useEffect(() => {
    setOverview(null);
    if (picked) load(picked);
  }, [picked?.account, picked?.profile]);

  if (!picked)
    return (
      <section>
        <h1>Data layers, revisions, imports and privacy</h1>
        <p role="status">Loading the accounts…</p>
      </section>
    );
  return (
    <section>
      <h1>Data layers, revisions, imports and privacy</h1>
      <div class="toolbar">
        <TenantPicker
          idPrefix="d"
          tenants={props.tenants}
          picked={picked}
          onPick={(next) => navigate(`${base}/data${queryOf({ account: next.account, profile: next.profile })}`)}
        />
        <button type="button" onClick={() => load(picked)} disabled={busy}>
          Refresh
        </button>
      </div>
      <p class="live" role="status" aria-live="polite">
        {busy ? "Loading…" : overview ? `Read at ${new Date().toISOString().replace(/\.\d+Z$/, "Z")}` : ""}
      </p>
      <ErrorNote error={error} />
      {overview ? (
        <>
          <h2>Data layers</h2>
          <DataLayers rows={overview.dataLayers} />
          <h2>Revisions</h2>
          <Revisions rows={overview.revisions} onError={setError} />
          <h2>File imports</h2>
          <Imports rows={overview.files} />
          <h2>Privacy</h2>
          <Privacy rows={overview.transactions} />
        </>
      ) : null}
    </section>
  );
}
