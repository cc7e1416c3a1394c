/**
 * The console's building blocks. Every value that came from outside (event parameters, user agents, file
 * names, data layer keys) is given to Preact as a text child, never as markup: Preact writes text nodes, so
 * nothing in a value can become an element or a script.
 */
import type { ComponentChildren } from "preact";
import { follow } from "./router.ts";

/** Any value as text: strings as they are, everything else as JSON. */
export function textOf(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

export function Link(props: { href: string; children: ComponentChildren; class?: string; label?: string }) {
  return (
    <a href={props.href} class={props.class} aria-label={props.label} onClick={(event) => follow(event, props.href)}>
      {props.children}
    </a>
  );
}

export function ErrorNote(props: { error: unknown }) {
  if (!props.error) return null;
  const message = props.error instanceof Error ? props.error.message : textOf(props.error);
  return (
    <p class="error" role="alert">
      {message}
    </p>
  );
}

export function Empty(props: { children: ComponentChildren }) {
  return <p class="empty">{props.children}</p>;
}

/** A value shown in full, in a monospace block when it is long or structured. */
export function Value(props: { value: unknown }) {
  const { value } = props;
  if (value === null) return <span class="muted">null</span>;
  if (value === undefined) return <span class="muted">—</span>;
  if (typeof value === "object") return <code class="json">{JSON.stringify(value, null, 2)}</code>;
  return <span class="value">{textOf(value)}</span>;
}

/** A table of name/value pairs. */
export function Pairs(props: { caption: string; rows: ReadonlyArray<readonly [string, unknown]> }) {
  return (
    <table class="pairs">
      <caption>{props.caption}</caption>
      <tbody>
        {props.rows.map(([name, value]) => (
          <tr key={name}>
            <th scope="row">{name}</th>
            <td>
              <Value value={value} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export interface Column<T> {
  readonly title: string;
  readonly cell: (row: T) => ComponentChildren;
  readonly class?: string;
}

/** A table with a caption, column headers and a message when there are no rows. */
export function Table<T>(props: {
  caption: string;
  columns: readonly Column<T>[];
  rows: readonly T[];
  keyOf: (row: T, index: number) => string | number;
  empty: string;
  rowClass?: (row: T) => string | undefined;
}) {
  return (
    <div class="table-wrap">
      <table>
        <caption>{props.caption}</caption>
        <thead>
          <tr>
            {props.columns.map((column) => (
              <th scope="col" key={column.title} class={column.class}>
                {column.title}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.length === 0 ? (
            <tr>
              <td colSpan={props.columns.length} class="empty">
                {props.empty}
              </td>
            </tr>
          ) : (
            props.rows.map((row, index) => (
              <tr key={props.keyOf(row, index)} class={props.rowClass?.(row)}>
                {props.columns.map((column) => (
                  <td key={column.title} class={column.class}>
                    {column.cell(row)}
                  </td>
                ))}
              </tr>
            ))
          )}
        </tbody>
      </table>
    </div>
  );
}

/** A state word with its colour (pending, completed, failed, SUCCESS, ...). */
export function StateBadge(props: { state: string }) {
  return <span class={`badge state-${props.state.toLowerCase()}`}>{props.state}</span>;
}

/** A time as the service gave it (ISO 8601, virtual clock), in ISO 8601 without its milliseconds. */
export function Time(props: { iso: string | null | undefined }) {
  if (!props.iso) return <span class="muted">—</span>;
  return <time dateTime={props.iso}>{props.iso.replace(/\.\d+Z$/, "Z")}</time>;
}

/** A date the service answers in epoch milliseconds (a date attribute, a built-in visit time), as ISO 8601. */
export function dateText(value: unknown): unknown {
  return typeof value === "number" && Number.isFinite(value) && Math.abs(value) <= 8.64e15
    ? new Date(value).toISOString()
    : value;
}

/** Issue 43: a stored event's tracking-plan verdict, as a coloured word (with the number of violations). */
export function VerdictBadge(props: { verdict: string; violations: number }) {
  const { verdict, violations } = props;
  const text = verdict === "invalid" ? `invalid (${violations})` : verdict === "none" ? "no schema" : verdict;
  return <span class={`badge verdict-${verdict}`}>{text}</span>;
}
