/**
 * What the schema cannot say: names that must be unique, and references that must point at something
 * declared in the same file. Runs on a file that already fits the schema; every problem names the path of
 * the offending value.
 */

import type { ConfigProblem } from "../../core/config/index.ts";
import { defaultLimits } from "../../core/config/index.ts";
import { compileDatePattern } from "../../core/files/index.ts";
import { fitsCombinedLength, maxCombinedNameLength } from "../../core/names/index.ts";
import { numberOf } from "../../core/profiles/index.ts";
import type { ConfigFile, ProfileFile } from "./config.schema.ts";

type AttributeFile = NonNullable<ProfileFile["attributes"]>[number];
type AttributeKind = AttributeFile["type"] | "visitor ID";
type ActionType = NonNullable<AttributeFile["enrichments"]>[number]["action"]["type"];

/** DEC-PRO-01: which attribute types each enrichment action can change. */
const actionTargets: Readonly<Record<ActionType, readonly AttributeKind[]>> = {
  increment: ["number"],
  increment_by_parameter: ["number"],
  set_from_parameter: ["number", "string", "boolean", "date"],
  set_value: ["number", "string", "boolean", "date"],
  set_event_time: ["date"],
  assign_badge: ["badge"],
  remove_badge: ["badge"],
};

const operatorsWithoutValue = new Set(["exists", "not_exists"]);
const numericOperators = new Set(["greater_than", "less_than"]);

export function checkReferences(file: ConfigFile): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const report = (path: string, message: string) => problems.push({ path, message });

  const accounts = new Map<string, Set<string>>();
  const accountNames = firstOccurrences();
  (file.accounts ?? []).forEach((account, a) => {
    const accountPath = `/accounts/${a}`;
    accountNames.check(account.name, `${accountPath}/name`, `account "${account.name}"`, report);
    const profileNames = firstOccurrences();
    const profiles = accounts.get(account.name) ?? new Set<string>();
    accounts.set(account.name, profiles);
    (account.profiles ?? []).forEach((profile, p) => {
      const profilePath = `${accountPath}/profiles/${p}`;
      profileNames.check(profile.name, `${profilePath}/name`, `profile "${profile.name}"`, report);
      profiles.add(profile.name);
      // DEC-DLE-02: every API addresses a profile by both names, and refuses them past 250 together.
      if (!fitsCombinedLength(account.name, profile.name)) {
        const length = account.name.length + profile.name.length;
        report(
          `${profilePath}/name`,
          `the account and profile names together have ${length} characters; at most ${maxCombinedNameLength} are allowed`,
        );
      }
      checkProfile(profile, profilePath, report);
    });
  });

  // A budget smaller than the largest body would refuse every event of that size, from anyone.
  const limits = { ...defaultLimits, ...file.limits };
  if (limits.collectBytesPerSourcePerSecond < limits.maxBodyBytes) {
    report(
      "/limits/collectBytesPerSourcePerSecond",
      `must be at least limits.maxBodyBytes (${limits.maxBodyBytes}), or events that large could never be collected (found ${limits.collectBytesPerSourcePerSecond}${file.limits?.collectBytesPerSourcePerSecond === undefined ? ", the default" : ""})`,
    );
  }

  const emails = firstOccurrences();
  (file.users ?? []).forEach((user, u) => {
    emails.check(user.email.toLowerCase(), `/users/${u}/email`, `user "${user.email}"`, report);
    const grantedAccounts = firstOccurrences();
    (user.grants ?? []).forEach((grant, g) => {
      const grantPath = `/users/${u}/grants/${g}`;
      grantedAccounts.check(grant.account, `${grantPath}/account`, `grant on account "${grant.account}"`, report);
      const profiles = accounts.get(grant.account);
      if (!profiles) {
        report(`${grantPath}/account`, `no account "${grant.account}" is configured`);
        return;
      }
      if (grant.profiles === "*") return;
      grant.profiles.forEach((name, n) => {
        if (!profiles.has(name))
          report(`${grantPath}/profiles/${n}`, `account "${grant.account}" has no profile "${name}"`);
      });
    });
  });

  const keyIds = firstOccurrences();
  (file.apiKeys ?? []).forEach((apiKey, k) => {
    keyIds.check(apiKey.id, `/apiKeys/${k}/id`, `API key id "${apiKey.id}"`, report);
    if (!emails.has(apiKey.user.toLowerCase())) report(`/apiKeys/${k}/user`, `no user "${apiKey.user}" is configured`);
  });

  return problems;
}

function checkProfile(profile: ProfileFile, path: string, report: (path: string, message: string) => void): void {
  // Visitor ID attributes and attributes share one id space.
  const attributeIds = firstOccurrences();
  const kinds = new Map<number, AttributeKind>();
  (profile.visitorIdAttributes ?? []).forEach((attribute, i) => {
    attributeIds.check(attribute.id, `${path}/visitorIdAttributes/${i}/id`, `attribute id ${attribute.id}`, report);
    if (!kinds.has(attribute.id)) kinds.set(attribute.id, "visitor ID");
  });
  // MOM-04, DEC-MOM-01: an engine with `keys: names` keys attributes and audiences by their exact names.
  const attributeNames = firstOccurrences();
  (profile.attributes ?? []).forEach((attribute, i) => {
    attributeIds.check(attribute.id, `${path}/attributes/${i}/id`, `attribute id ${attribute.id}`, report);
    attributeNames.check(attribute.name, `${path}/attributes/${i}/name`, `attribute name "${attribute.name}"`, report);
    if (!kinds.has(attribute.id)) kinds.set(attribute.id, attribute.type);
  });

  (profile.attributes ?? []).forEach((attribute, i) => {
    (attribute.enrichments ?? []).forEach((enrichment, e) => {
      const enrichmentPath = `${path}/attributes/${i}/enrichments/${e}`;
      const allowed = actionTargets[enrichment.action.type];
      if (!allowed.includes(attribute.type)) {
        report(
          `${enrichmentPath}/action/type`,
          `${enrichment.action.type} cannot change a ${attribute.type} attribute (it applies to: ${allowed.join(", ")})`,
        );
      }
      checkConditionValues(enrichment.conditions ?? [], `${enrichmentPath}/conditions`, report);
      (enrichment.conditions ?? []).forEach((group, g) => {
        group.forEach((condition, c) => {
          if ("attribute" in condition && !kinds.has(condition.attribute)) {
            report(
              `${enrichmentPath}/conditions/${g}/${c}/attribute`,
              `no attribute ${condition.attribute} in this profile`,
            );
          }
        });
      });
    });
  });

  const audienceIds = firstOccurrences();
  const audienceNames = firstOccurrences();
  (profile.audiences ?? []).forEach((audience, i) => {
    const audiencePath = `${path}/audiences/${i}`;
    audienceIds.check(audience.id, `${audiencePath}/id`, `audience id ${audience.id}`, report);
    audienceNames.check(audience.name, `${audiencePath}/name`, `audience name "${audience.name}"`, report);
    checkConditionValues(audience.conditions ?? [], `${audiencePath}/conditions`, report);
    (audience.conditions ?? []).forEach((group, g) => {
      group.forEach((condition, c) => {
        if ("attribute" in condition && !kinds.has(condition.attribute)) {
          report(
            `${audiencePath}/conditions/${g}/${c}/attribute`,
            `no attribute ${condition.attribute} in this profile`,
          );
        }
      });
    });
  });

  const engineIds = firstOccurrences();
  (profile.engines ?? []).forEach((engine, i) => {
    const enginePath = `${path}/engines/${i}`;
    engineIds.check(engine.id, `${enginePath}/id`, `engine id "${engine.id}"`, report);
    (engine.audiences ?? []).forEach((id, n) => {
      if (!audienceIds.has(id)) report(`${enginePath}/audiences/${n}`, `no audience ${id} in this profile`);
    });
    (engine.badges ?? []).forEach((id, n) => {
      const kind = kinds.get(id);
      if (kind !== "badge")
        report(
          `${enginePath}/badges/${n}`,
          kind ? `attribute ${id} is a ${kind} attribute, not a badge` : `no badge ${id} in this profile`,
        );
    });
    (engine.attributes ?? []).forEach((id, n) => {
      const kind = kinds.get(id);
      const at = `${enginePath}/attributes/${n}`;
      if (kind === undefined) report(at, `no attribute ${id} in this profile`);
      else if (kind === "badge") report(at, `attribute ${id} is a badge; list it under badges`);
      else if (kind === "visitor ID")
        report(at, `attribute ${id} is a visitor ID attribute, which engines do not return`);
    });
  });

  const prefixes = firstOccurrences();
  (profile.fileDefinitions ?? []).forEach((definition, i) => {
    const definitionPath = `${path}/fileDefinitions/${i}`;
    prefixes.check(definition.prefix, `${definitionPath}/prefix`, `file prefix "${definition.prefix}"`, report);
    const visitorIdKind = kinds.get(definition.visitorId.attribute);
    if (visitorIdKind !== "visitor ID") {
      report(
        `${definitionPath}/visitorId/attribute`,
        visitorIdKind
          ? `attribute ${definition.visitorId.attribute} is not a visitor ID attribute`
          : `no visitor ID attribute ${definition.visitorId.attribute} in this profile`,
      );
    }
    const columns = firstOccurrences();
    columns.check(
      definition.visitorId.column,
      `${definitionPath}/visitorId/column`,
      `column "${definition.visitorId.column}"`,
      report,
    );
    (definition.columns ?? []).forEach((column, c) => {
      const columnPath = `${definitionPath}/columns/${c}`;
      columns.check(column.column, `${columnPath}/column`, `column "${column.column}"`, report);
      const kind = kinds.get(column.attribute);
      if (kind === undefined) report(`${columnPath}/attribute`, `no attribute ${column.attribute} in this profile`);
      else if (kind === "badge")
        report(`${columnPath}/attribute`, `attribute ${column.attribute} is a badge, which a column cannot set`);
      else if ((kind === "visitor ID" ? "string" : kind) !== column.type) {
        report(
          `${columnPath}/type`,
          `must match the type of attribute ${column.attribute} (${kind === "visitor ID" ? "string" : kind})`,
        );
      }
      if (column.type === "date" && column.dateFormat === undefined) {
        report(`${columnPath}/dateFormat`, 'is required for a date column (for example "yyyy-MM-dd HH:mm")');
      }
      if (column.type !== "date" && column.dateFormat !== undefined)
        report(`${columnPath}/dateFormat`, "is only allowed for a date column");
      if (column.type === "date" && column.dateFormat !== undefined) {
        // DEC-FIL-01: a pattern the import could not read is refused now, not at the first file.
        const pattern = compileDatePattern(column.dateFormat);
        if (!pattern.ok) report(`${columnPath}/dateFormat`, pattern.error);
      }
    });
  });
}

/**
 * DEC-PRO-01: every operator compares with a value except exists and not_exists; greater_than and less_than
 * compare numbers, so a value that is not one (as core/profiles/profile.rules.ts reads numbers) never holds.
 */
function checkConditionValues(
  groups: readonly (readonly { operator: string; value?: unknown }[])[],
  path: string,
  report: (path: string, message: string) => void,
): void {
  groups.forEach((group, g) => {
    group.forEach((condition, c) => {
      const needsValue = !operatorsWithoutValue.has(condition.operator);
      if (needsValue && condition.value === undefined)
        report(`${path}/${g}/${c}/value`, `is required for the operator ${condition.operator}`);
      if (!needsValue && condition.value !== undefined)
        report(`${path}/${g}/${c}/value`, `is not allowed for the operator ${condition.operator}`);
      if (
        numericOperators.has(condition.operator) &&
        condition.value !== undefined &&
        numberOf(condition.value) === null
      ) {
        report(
          `${path}/${g}/${c}/value`,
          `must be a number for the operator ${condition.operator} (found ${JSON.stringify(condition.value)})`,
        );
      }
    });
  });
}

/** Remembers where each key was first seen, and reports a key seen again with both places. */
function firstOccurrences() {
  const seen = new Map<string | number, string>();
  return {
    has: (key: string | number) => seen.has(key),
    check(key: string | number, path: string, what: string, report: (path: string, message: string) => void) {
      const first = seen.get(key);
      if (first === undefined) seen.set(key, path);
      else report(path, `duplicate ${what} (first given at ${first})`);
    },
  };
}
