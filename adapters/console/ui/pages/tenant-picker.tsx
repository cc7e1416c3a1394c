/** The account and profile a page shows, kept in the page's query string so that a link names them. */
import type { Tenant } from "../types.ts";

export interface Picked {
  readonly account: string;
  readonly profile: string;
}

const lastPickKey = "svc-hub.console.picked";

/** Remembered for the tab, so that moving between pages keeps the account and profile. */
export function rememberPick(picked: Picked): void {
  sessionStorage.setItem(lastPickKey, JSON.stringify(picked));
}

function lastPick(): Partial<Picked> {
  try {
    return JSON.parse(sessionStorage.getItem(lastPickKey) ?? "{}") as Partial<Picked>;
  } catch {
    return {};
  }
}

/**
 * The account and profile named in the query, else the last picked in this tab, else those of the latest stored
 * event (`latest`, where the traffic goes), else the first account's `main` profile (or its first).
 */
export function pickedOf(tenants: readonly Tenant[], query: URLSearchParams, latest: Picked | null): Picked | null {
  const stored = lastPick();
  const last = stored.account === undefined && latest ? latest : stored;
  const wanted = query.get("account") ?? last.account;
  const account = tenants.find((tenant) => tenant.name === wanted) ?? tenants[0];
  if (!account) return null;
  const wantedProfile = query.get("account") ? query.get("profile") : (query.get("profile") ?? last.profile);
  const profile =
    account.profiles.find((name) => name === wantedProfile) ??
    account.profiles.find((name) => name === "main") ??
    account.profiles[0];
  if (profile === undefined) return null;
  const picked = { account: account.name, profile };
  rememberPick(picked);
  return picked;
}

export function TenantPicker(props: {
  idPrefix: string;
  tenants: readonly Tenant[];
  picked: Picked;
  onPick: (picked: Picked) => void;
}) {
  const { tenants, picked, idPrefix } = props;
  const profiles = tenants.find((tenant) => tenant.name === picked.account)?.profiles ?? [];
  return (
    <div class="picker">
      <div class="field">
        <label for={`${idPrefix}-account`}>Account</label>
        <select
          id={`${idPrefix}-account`}
          value={picked.account}
          onChange={(event) => {
            const account = event.currentTarget.value;
            const profiles = tenants.find((tenant) => tenant.name === account)?.profiles ?? [];
            props.onPick({ account, profile: profiles.includes("main") ? "main" : (profiles[0] ?? "") });
          }}
        >
          {tenants.map((tenant) => (
            <option key={tenant.name} value={tenant.name}>
              {tenant.name}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for={`${idPrefix}-profile`}>Profile</label>
        <select
          id={`${idPrefix}-profile`}
          value={picked.profile}
          onChange={(event) => props.onPick({ account: picked.account, profile: event.currentTarget.value })}
        >
          {profiles.map((profile) => (
            <option key={profile} value={profile}>
              {profile}
            </option>
          ))}
        </select>
      </div>
    </div>
  );
}
