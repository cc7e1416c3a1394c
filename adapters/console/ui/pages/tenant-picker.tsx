/** The account and profile a page shows, kept in the page's query string so that a link names them. */
import type { Tenant } from "../types.ts";

export interface Picked {
  readonly account: string;
  readonly profile: string;
}

/** The account and profile named in the query, else the first of the first account. */
export function pickedOf(tenants: readonly Tenant[], query: URLSearchParams): Picked | null {
  const account = tenants.find((tenant) => tenant.name === query.get("account")) ?? tenants[0];
  if (!account) return null;
  const profile = account.profiles.find((name) => name === query.get("profile")) ?? account.profiles[0];
  return profile === undefined ? null : { account: account.name, profile };
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
            const first = tenants.find((tenant) => tenant.name === account)?.profiles[0] ?? "";
            props.onPick({ account, profile: first });
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
