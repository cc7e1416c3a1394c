import { describe, expect, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import type { ConfigError } from "../../core/config/index.ts";
import { defaultLimits, type ServiceConfig } from "../../core/config/index.ts";
import { modulesLoadedAfter } from "../../testing/modules-loaded.ts";
import { type ConfigFormat, loadConfigFile, parseConfigText } from "./config.loader.ts";
import { loadYamlParser } from "./config.syntax.ts";
import { demoConfigPath, demoYamlConfigPath } from "./demo-config.ts";
import { loadPlanCompiler } from "./tracking-plans.ts";

// parseConfigText reads YAML and compiles tracking plans once their parsers are loaded (loadConfigFile loads them).
await loadYamlParser();
await loadPlanCompiler();

const argonHash = "$argon2id$v=19$m=65536,t=2,p=1$c2FsdA$aGFzaA";

function parsed(text: string, format: ConfigFormat = "yaml"): ServiceConfig {
  const result = parseConfigText(text, format, `svc.config.${format}`);
  if (!result.ok) throw new Error(`expected a valid configuration:\n${result.error.format()}`);
  return result.value;
}

function failure(text: string, format: ConfigFormat = "yaml"): ConfigError {
  const result = parseConfigText(text, format, `svc.config.${format}`);
  if (result.ok) throw new Error("expected the configuration to be refused");
  return result.error;
}

/** The problems as `path: message` lines, the way an operator reads them. */
function problems(text: string, format: ConfigFormat = "yaml"): string[] {
  return failure(text, format).problems.map((problem) => `${problem.path}: ${problem.message}`);
}

/** A valid profile to put mistakes into; `extra` is YAML indented under the profile. */
function withProfile(extra: string): string {
  return `
accounts:
  - name: acme
    profiles:
      - name: main
        visitorIdAttributes:
          - { id: 5120, name: email_address, parameter: email_address }
        attributes:
          - { id: 5201, name: Count, type: number }
          - { id: 5203, name: Has purchased, type: boolean }
          - { id: 5204, name: Last purchase, type: date }
          - { id: 5205, name: Buyer, type: badge }
${extra
  .split("\n")
  .map((line) => `        ${line}`)
  .join("\n")}
`;
}

/** A profile holding only the given attributes (a YAML flow list). */
function withAttributes(list: string): string {
  return `accounts: [{ name: acme, profiles: [{ name: main, attributes: ${list} }] }]`;
}

describe("valid files", () => {
  test("an empty JSON object is a configuration with every default", () => {
    expect(parsed("{}", "json")).toEqual({
      timing: "fast",
      limits: defaultLimits,
      accounts: [],
      users: [],
      apiKeys: [],
      revisionFilePrefix: "utag",
      revisions: [],
    });
  });

  test("defaults are filled in for everything left out", () => {
    const config = parsed(`
nodeId: node-a
limits: { lockoutAttempts: 3 }
accounts:
  - name: acme
    profiles:
      - name: main
        visitorIdAttributes: [{ id: 5120, name: email, parameter: email_address }]
        attributes:
          - id: 5201
            name: Count
            type: number
            enrichments: [{ when: any_event, action: { type: increment, by: 1 } }]
        audiences: [{ id: 7, name: Everyone }]
        engines: [{ id: e1 }]
        fileDefinitions: [{ prefix: p, visitorId: { column: email, attribute: 5120 } }]
      - name: dev
  - name: globex
users:
  - { email: a@example.com, password: { env: A_PASSWORD } }
apiKeys:
  - { id: k1, user: a@example.com, key: { hash: "${argonHash}" } }
`);
    expect(config).toEqual({
      nodeId: "node-a",
      timing: "fast",
      limits: { ...defaultLimits, lockoutAttempts: 3 },
      accounts: [
        {
          name: "acme",
          profiles: [
            {
              name: "main",
              visitorIdAttributes: [{ id: 5120, name: "email", parameter: "email_address" }],
              attributes: [
                {
                  id: 5201,
                  name: "Count",
                  type: "number",
                  pii: false,
                  enrichments: [{ when: "any_event", conditions: [], action: { type: "increment", by: 1 } }],
                },
              ],
              audiences: [{ id: 7, name: "Everyone", conditions: [] }],
              engines: [
                {
                  id: "e1",
                  name: "e1",
                  enabled: true,
                  allowedDomains: [],
                  keys: "names",
                  audiences: [],
                  badges: [],
                  attributes: [],
                },
              ],
              fileDefinitions: [
                { prefix: "p", event: "imported", visitorId: { column: "email", attribute: 5120 }, columns: [] },
              ],
            },
            { name: "dev", visitorIdAttributes: [], attributes: [], audiences: [], engines: [], fileDefinitions: [] },
          ],
        },
        { name: "globex", profiles: [] },
      ],
      users: [{ email: "a@example.com", password: { env: "A_PASSWORD" }, disabled: false, grants: [] }],
      apiKeys: [{ id: "k1", user: "a@example.com", key: { hash: argonHash } }],
      revisionFilePrefix: "utag",
      revisions: [],
    });
  });

  test("the same configuration reads the same from JSON and from YAML", () => {
    const json = `{"timing": "instant", "accounts": [{"name": "acme", "profiles": [{"name": "main"}]}],
      "users": [{"email": "a@example.com", "password": {"hash": "${argonHash}"}, "grants": [{"account": "acme", "profiles": ["main"]}]}]}`;
    const yaml = `
timing: instant
accounts: [{ name: acme, profiles: [{ name: main }] }]
users:
  - email: a@example.com
    password: { hash: "${argonHash}" }
    grants: [{ account: acme, profiles: [main] }]
`;
    expect(parsed(json, "json")).toEqual(parsed(yaml, "yaml"));
  });
});

describe("schema problems name the path and say what was expected", () => {
  test("an e-mail that is not one", () => {
    expect(problems(`users: [{ email: not-an-email, password: { env: X } }]`)).toEqual([
      '/users/0/email: must be an e-mail address (found "not-an-email")',
    ]);
  });

  test("a missing property", () => {
    expect(problems(`users: [{ email: a@example.com }]`)).toEqual(["/users/0/password: is required"]);
  });

  test("an unknown property, with the likely intended name", () => {
    expect(problems(`users: [{ email: a@example.com, password: { env: X }, disable: true }]`)).toEqual([
      '/users/0/disable: unknown property "disable"; did you mean "disabled"?',
    ]);
    expect(problems(`colour: blue`)).toEqual([
      '/colour: unknown property "colour"; allowed: $schema, nodeId, timing, limits, accounts, users, apiKeys, revisionFilePrefix, revisions',
    ]);
  });

  test("a value outside a list of allowed words names the allowed words", () => {
    expect(problems(withProfile(`engines: [{ id: e1, keys: name }]`))).toEqual([
      '/accounts/0/profiles/0/engines/0/keys: must be one of: names, ids (found "name"); did you mean "names"?',
    ]);
    expect(problems(`timing: slow`)).toEqual(['/timing: must be one of: instant, fast, realistic (found "slow")']);
  });

  test("a wrong type names the expected type and what was found", () => {
    expect(problems(`limits: { maxBodyBytes: big, lockoutAttempts: 0 }\naccounts: { name: acme }`)).toEqual([
      "/limits/lockoutAttempts: must be a positive whole number (found 0)",
      '/limits/maxBodyBytes: must be a whole number (found "big")',
      "/accounts: must be a list (found an object)",
    ]);
    expect(problems(withProfile(`audiences: [{ id: 1.5, name: A }]`))).toEqual([
      "/accounts/0/profiles/0/audiences/0/id: must be a whole number (found 1.5)",
    ]);
  });

  test("a source's byte budget smaller than the largest body is refused, naming both", () => {
    expect(problems(`limits: { collectBytesPerSourcePerSecond: 1000 }`)).toEqual([
      "/limits/collectBytesPerSourcePerSecond: must be at least limits.maxBodyBytes (1048576), or events that large could never be collected (found 1000)",
    ]);
    expect(problems(`limits: { maxBodyBytes: 16777216 }`)).toEqual([
      "/limits/collectBytesPerSourcePerSecond: must be at least limits.maxBodyBytes (16777216), or events that large could never be collected (found 8388608, the default)",
    ]);
    expect(
      parsed(`limits: { maxBodyBytes: 16777216, collectBytesPerSourcePerSecond: 16777216, eventRetentionDays: 30 }`)
        .limits,
    ).toEqual({
      ...defaultLimits,
      maxBodyBytes: 16777216,
      collectBytesPerSourcePerSecond: 16777216,
      eventRetentionDays: 30,
    });
    expect(problems(`limits: { eventRetentionDays: 0 }`)).toEqual([
      "/limits/eventRetentionDays: must be a positive whole number (found 0)",
    ]);
  });

  test("account, profile and engine names follow the name rule (DEC-DLE-02)", () => {
    expect(problems(`accounts: [{ name: "ac me", profiles: [{ name: "main.x", engines: [{ id: "e/1" }] }] }]`)).toEqual(
      [
        '/accounts/0/name: may contain only the characters A-Z a-z 0-9 _ - ~ (found "ac me")',
        '/accounts/0/profiles/0/name: may contain only the characters A-Z a-z 0-9 _ - ~ (found "main.x")',
        '/accounts/0/profiles/0/engines/0/id: may contain only the characters A-Z a-z 0-9 _ - ~ (found "e/1")',
      ],
    );
  });

  test("an enrichment action is checked against the alternative its type names", () => {
    const attribute = (action: string) =>
      withAttributes(`[{ id: 1, name: A, type: number, enrichments: [{ when: any_event, action: ${action} }] }]`);
    expect(problems(attribute(`{ type: increment, by: "1" }`))).toEqual([
      '/accounts/0/profiles/0/attributes/0/enrichments/0/action/by: must be a number (found "1")',
    ]);
    expect(problems(attribute(`{ type: incremnt, by: 1 }`))[0]).toStartWith(
      "/accounts/0/profiles/0/attributes/0/enrichments/0/action/type: must be one of: increment, increment_by_parameter,",
    );
    expect(problems(attribute(`{ by: 1 }`))[0]).toStartWith(
      "/accounts/0/profiles/0/attributes/0/enrichments/0/action/type: is required (one of: increment,",
    );
  });

  test("secrets are a hash or an environment variable, and a clear value is never echoed", () => {
    expect(problems(`users: [{ email: a@example.com, password: hunter2 }]`)).toEqual([
      '/users/0/password: must be either { hash: "$argon2id$..." } or { env: "NAME" } (found a string)',
    ]);
    expect(problems(`users: [{ email: a@example.com, password: { hash: hunter2 } }]`)).toEqual([
      '/users/0/password/hash: must be an argon2id hash ("$argon2id$v=19$m=...,t=...,p=...$salt$hash") (found a string)',
    ]);
    expect(problems(`users: [{ email: a@example.com, password: { hash: "${argonHash}", env: X } }]`)).toEqual([
      '/users/0/password: must be either { hash: "$argon2id$..." } or { env: "NAME" } (found an object)',
    ]);
    expect(problems(`apiKeys: [{ id: k1, user: a@example.com, key: { env: "1X" } }]`)).toEqual([
      '/apiKeys/0/key/env: must be the name of an environment variable (letters, digits and _) (found "1X")',
    ]);
  });

  test('a grant is on all profiles ("*") or a list of them', () => {
    expect(
      problems(`users: [{ email: a@example.com, password: { env: X }, grants: [{ account: acme, profiles: all }] }]`),
    ).toEqual(['/users/0/grants/0/profiles: must be "*" (all profiles) or a list of profile names (found "all")']);
  });

  test("several problems are reported at once, one line each", () => {
    const error = failure(`
timing: slow
users:
  - { email: nobody, password: { env: X } }
  - { email: b@example.com }
`);
    expect(error.format().split("\n")).toEqual([
      'svc.config.yaml: /timing: must be one of: instant, fast, realistic (found "slow")',
      'svc.config.yaml: /users/0/email: must be an e-mail address (found "nobody")',
      "svc.config.yaml: /users/1/password: is required",
    ]);
  });
});

describe("uniqueness and cross-references", () => {
  test("duplicate accounts and profiles", () => {
    expect(problems(`accounts: [{ name: acme, profiles: [{ name: main }, { name: main }] }, { name: acme }]`)).toEqual([
      '/accounts/0/profiles/1/name: duplicate profile "main" (first given at /accounts/0/profiles/0/name)',
      '/accounts/1/name: duplicate account "acme" (first given at /accounts/0/name)',
    ]);
  });

  test("duplicate user e-mails, compared without case, and duplicate API key ids", () => {
    expect(
      problems(`
users:
  - { email: a@example.com, password: { env: X } }
  - { email: A@Example.COM, password: { env: Y } }
apiKeys:
  - { id: k1, user: a@example.com, key: { env: K } }
  - { id: k1, user: a@example.com, key: { env: K } }
`),
    ).toEqual([
      '/users/1/email: duplicate user "A@Example.COM" (first given at /users/0/email)',
      '/apiKeys/1/id: duplicate API key id "k1" (first given at /apiKeys/0/id)',
    ]);
  });

  test("attribute ids are unique in a profile, visitor ID attributes included", () => {
    expect(problems(withProfile(`audiences: [{ id: 7, name: A }, { id: 7, name: B }]`))).toEqual([
      "/accounts/0/profiles/0/audiences/1/id: duplicate audience id 7 (first given at /accounts/0/profiles/0/audiences/0/id)",
    ]);
    const text = `accounts: [{ name: acme, profiles: [{ name: main,
      visitorIdAttributes: [{ id: 5120, name: email, parameter: email }],
      attributes: [{ id: 5120, name: Count, type: number }, { id: 5201, name: A, type: number }, { id: 5201, name: B, type: string }] }] }]`;
    expect(problems(text)).toEqual([
      "/accounts/0/profiles/0/attributes/0/id: duplicate attribute id 5120 (first given at /accounts/0/profiles/0/visitorIdAttributes/0/id)",
      "/accounts/0/profiles/0/attributes/2/id: duplicate attribute id 5201 (first given at /accounts/0/profiles/0/attributes/1/id)",
    ]);
  });

  test("duplicate engine ids and file prefixes", () => {
    expect(
      problems(
        withProfile(`engines: [{ id: e1 }, { id: e1 }]
fileDefinitions:
  - { prefix: p, visitorId: { column: email, attribute: 5120 } }
  - { prefix: p, visitorId: { column: email, attribute: 5120 } }`),
      ),
    ).toEqual([
      '/accounts/0/profiles/0/engines/1/id: duplicate engine id "e1" (first given at /accounts/0/profiles/0/engines/0/id)',
      '/accounts/0/profiles/0/fileDefinitions/1/prefix: duplicate file prefix "p" (first given at /accounts/0/profiles/0/fileDefinitions/0/prefix)',
    ]);
  });

  test("grants name configured accounts and profiles", () => {
    expect(
      problems(`
accounts: [{ name: acme, profiles: [{ name: main }] }]
users:
  - email: a@example.com
    password: { env: X }
    grants: [{ account: acme, profiles: [main, dev] }, { account: initech, profiles: "*" }, { account: acme, profiles: "*" }]
`),
    ).toEqual([
      '/users/0/grants/0/profiles/1: account "acme" has no profile "dev"',
      '/users/0/grants/1/account: no account "initech" is configured',
      '/users/0/grants/2/account: duplicate grant on account "acme" (first given at /users/0/grants/0/account)',
    ]);
  });

  test("an API key names a configured user", () => {
    expect(problems(`apiKeys: [{ id: k1, user: ghost@example.com, key: { env: K } }]`)).toEqual([
      '/apiKeys/0/user: no user "ghost@example.com" is configured',
    ]);
  });

  test("an engine selects existing audiences, badges and attributes", () => {
    expect(
      problems(
        withProfile(
          `engines: [{ id: e1, audiences: [8], badges: [5205, 5201, 9], attributes: [5201, 5205, 5120, 9] }]`,
        ),
      ),
    ).toEqual([
      "/accounts/0/profiles/0/engines/0/audiences/0: no audience 8 in this profile",
      "/accounts/0/profiles/0/engines/0/badges/1: attribute 5201 is a number attribute, not a badge",
      "/accounts/0/profiles/0/engines/0/badges/2: no badge 9 in this profile",
      "/accounts/0/profiles/0/engines/0/attributes/1: attribute 5205 is a badge; list it under badges",
      "/accounts/0/profiles/0/engines/0/attributes/2: attribute 5120 is a visitor ID attribute, which engines do not return",
      "/accounts/0/profiles/0/engines/0/attributes/3: no attribute 9 in this profile",
    ]);
  });

  test("an audience condition names an existing attribute and has a value when its operator needs one", () => {
    expect(
      problems(
        withProfile(`audiences:
  - id: 7
    name: A
    conditions: [[{ attribute: 5203, operator: equals, value: true }], [{ attribute: 99, operator: exists }, { attribute: 5201, operator: greater_than }]]`),
      ),
    ).toEqual([
      "/accounts/0/profiles/0/audiences/0/conditions/1/1/value: is required for the operator greater_than",
      "/accounts/0/profiles/0/audiences/0/conditions/1/0/attribute: no attribute 99 in this profile",
    ]);
  });

  test("an enrichment's action fits the type of its attribute", () => {
    expect(
      problems(
        withAttributes(`[
          { id: 1, name: A, type: string, enrichments: [{ when: any_event, action: { type: assign_badge } }] },
          { id: 2, name: B, type: badge, enrichments: [{ when: new_visit, conditions: [[{ parameter: p, operator: exists, value: x }]],
            action: { type: assign_badge } }] }]`),
      ),
    ).toEqual([
      "/accounts/0/profiles/0/attributes/0/enrichments/0/action/type: assign_badge cannot change a string attribute (it applies to: badge)",
      "/accounts/0/profiles/0/attributes/1/enrichments/0/conditions/0/0/value: is not allowed for the operator exists",
    ]);
  });

  test("a file definition maps a visitor ID attribute and existing attributes, with a date format for dates", () => {
    expect(
      problems(
        withProfile(`fileDefinitions:
  - prefix: purchases
    visitorId: { column: email, attribute: 5201 }
    columns:
      - { column: amount, attribute: 9, type: number }
      - { column: purchased_at, attribute: 5204, type: date }
      - { column: count, attribute: 5201, type: string }
      - { column: flag, attribute: 5203, type: boolean, dateFormat: yyyy }
      - { column: email, attribute: 5120, type: string }
  - prefix: other
    visitorId: { column: email, attribute: 77 }`),
      ),
    ).toEqual([
      "/accounts/0/profiles/0/fileDefinitions/0/visitorId/attribute: attribute 5201 is not a visitor ID attribute",
      "/accounts/0/profiles/0/fileDefinitions/0/columns/0/attribute: no attribute 9 in this profile",
      '/accounts/0/profiles/0/fileDefinitions/0/columns/1/dateFormat: is required for a date column (for example "yyyy-MM-dd HH:mm")',
      "/accounts/0/profiles/0/fileDefinitions/0/columns/2/type: must match the type of attribute 5201 (number)",
      "/accounts/0/profiles/0/fileDefinitions/0/columns/3/dateFormat: is only allowed for a date column",
      '/accounts/0/profiles/0/fileDefinitions/0/columns/4/column: duplicate column "email" (first given at /accounts/0/profiles/0/fileDefinitions/0/visitorId/column)',
      "/accounts/0/profiles/0/fileDefinitions/1/visitorId/attribute: no visitor ID attribute 77 in this profile",
    ]);
  });

  test("DEC-FIL-01: a date format the import cannot read is refused at load, saying what is supported", () => {
    expect(
      problems(
        withProfile(`fileDefinitions:
  - prefix: purchases
    visitorId: { column: email, attribute: 5120 }
    columns:
      - { column: purchased_at, attribute: 5204, type: date, dateFormat: "dd MMM yyyy hh:mm a" }`),
      ),
    ).toEqual([
      `/accounts/0/profiles/0/fileDefinitions/0/columns/0/dateFormat: uses "MMM", which is not supported; supported: y (yyyy), M, MM, d, dd, H, HH, m, mm, s, ss, SSS and literal text (quote letters: 'T')`,
    ]);
  });
});

describe("DEC-OPS-03: values the service could never use are refused at load", () => {
  test("DEC-GEN-05: a node id must fit the X-NodeId header (visible ASCII, at most 128 characters)", () => {
    const message =
      "must be visible ASCII characters (no spaces or control characters), at most 128, to fit the X-NodeId header";
    expect(problems(`nodeId: "node\\nX-Evil: 1"`)).toEqual([`/nodeId: ${message} (found "node\\nX-Evil: 1")`]);
    expect(problems(`nodeId: "nœud-1"`)).toEqual([`/nodeId: ${message} (found "nœud-1")`]);
    expect(problems(`nodeId: "${"n".repeat(129)}"`)[0]).toStartWith(`/nodeId: ${message} (found "nnn`);
    expect(parsed(`nodeId: "${"n".repeat(128)}"`).nodeId).toHaveLength(128);
    expect(parsed(`nodeId: "eu-west_1:a/b.2"`).nodeId).toBe("eu-west_1:a/b.2");
  });

  test("MOM-04, DEC-MOM-01: attribute names and audience names are unique in a profile, as engines key them by name", () => {
    expect(
      problems(
        withProfile(`audiences: [{ id: 7, name: Buyers }, { id: 8, name: Buyers }, { id: 9, name: buyers }]
engines: [{ id: e1, audiences: [7, 8] }]`).replace("name: Buyer, type: badge", "name: Count, type: string"),
      ),
    ).toEqual([
      '/accounts/0/profiles/0/attributes/3/name: duplicate attribute name "Count" (first given at /accounts/0/profiles/0/attributes/0/name)',
      '/accounts/0/profiles/0/audiences/1/name: duplicate audience name "Buyers" (first given at /accounts/0/profiles/0/audiences/0/name)',
    ]);
  });

  test("DEC-MOM-01: an allowed domain is a host name a Referer can have", () => {
    const engine = (domains: string) => withProfile(`engines: [{ id: e1, allowedDomains: ${domains} }]`);
    const message =
      "must be a host name (letters, digits, hyphens and dots; no scheme, port, path or wildcard; a domain allows its subdomains)";
    expect(
      problems(
        engine(
          `["https://shop.example.com", "*.example.com", "example.com:8080", "example.com/shop", "a..b", ".example.com"]`,
        ),
      ),
    ).toEqual([
      `/accounts/0/profiles/0/engines/0/allowedDomains/0: ${message} (found "https://shop.example.com")`,
      `/accounts/0/profiles/0/engines/0/allowedDomains/1: ${message} (found "*.example.com")`,
      `/accounts/0/profiles/0/engines/0/allowedDomains/2: ${message} (found "example.com:8080")`,
      `/accounts/0/profiles/0/engines/0/allowedDomains/3: ${message} (found "example.com/shop")`,
      `/accounts/0/profiles/0/engines/0/allowedDomains/4: ${message} (found "a..b")`,
      `/accounts/0/profiles/0/engines/0/allowedDomains/5: ${message} (found ".example.com")`,
    ]);
    const allowed = ["localhost", "127.0.0.1", "Shop.Example-1.COM", "[::1]", "[2001:db8::8a2e:370:7334]"];
    expect(parsed(engine(JSON.stringify(allowed))).accounts[0]?.profiles[0]?.engines[0]?.allowedDomains).toEqual(
      allowed,
    );
  });

  test("DEC-PRO-01: greater_than and less_than compare with a number", () => {
    expect(
      problems(
        withProfile(`audiences:
  - id: 7
    name: A
    conditions: [[{ attribute: 5201, operator: greater_than, value: many }, { attribute: 5201, operator: less_than, value: true }],
                 [{ attribute: 5201, operator: greater_than, value: "2.5" }, { attribute: 5201, operator: less_than, value: 10 }]]`).replace(
          "type: number }",
          `type: number, enrichments: [{ when: any_event, conditions: [[{ parameter: n, operator: less_than, value: " " }]], action: { type: increment, by: 1 } }] }`,
        ),
      ),
    ).toEqual([
      '/accounts/0/profiles/0/attributes/0/enrichments/0/conditions/0/0/value: must be a number for the operator less_than (found " ")',
      '/accounts/0/profiles/0/audiences/0/conditions/0/0/value: must be a number for the operator greater_than (found "many")',
      "/accounts/0/profiles/0/audiences/0/conditions/0/1/value: must be a number for the operator less_than (found true)",
    ]);
  });

  test("DEC-PRO-01: the number of greater_than and less_than is decimal, as events are read (no hex, binary or Infinity)", () => {
    expect(
      problems(
        withProfile(`audiences:
  - id: 7
    name: A
    conditions: [[{ attribute: 5201, operator: greater_than, value: "0x10" }, { attribute: 5201, operator: less_than, value: "Infinity" }],
                 [{ attribute: 5201, operator: greater_than, value: " 1e3 " }, { attribute: 5201, operator: less_than, value: "-.5" }]]`),
      ),
    ).toEqual([
      '/accounts/0/profiles/0/audiences/0/conditions/0/0/value: must be a number for the operator greater_than (found "0x10")',
      '/accounts/0/profiles/0/audiences/0/conditions/0/1/value: must be a number for the operator less_than (found "Infinity")',
    ]);
  });

  test("DEC-PRO-01, VID-08: an audience may test a visitor ID attribute", () => {
    const audiences = parsed(
      withProfile(`audiences: [{ id: 7, name: Known, conditions: [[{ attribute: 5120, operator: exists }]] }]`),
    ).accounts[0]?.profiles[0]?.audiences;
    expect(audiences).toEqual([{ id: 7, name: "Known", conditions: [[{ attribute: 5120, operator: "exists" }]] }]);
  });

  test("DEC-PRO-01: an audience may test a built-in; an unknown built-in, or a built-in in an enrichment, is refused", () => {
    const audiences = parsed(
      withProfile(
        `audiences: [{ id: 7, name: Returning, conditions: [[{ builtin: returning_visitor, operator: equals, value: true }], [{ builtin: lifetime_visit_count, operator: greater_than, value: 3 }]] }]`,
      ),
    ).accounts[0]?.profiles[0]?.audiences;
    expect(audiences?.[0]?.conditions).toEqual([
      [{ builtin: "returning_visitor", operator: "equals", value: true }],
      [{ builtin: "lifetime_visit_count", operator: "greater_than", value: 3 }],
    ]);
    expect(
      problems(withProfile(`audiences: [{ id: 7, name: R, conditions: [[{ builtin: visits, operator: exists }]] }]`)),
    ).toEqual([
      '/accounts/0/profiles/0/audiences/0/conditions/0/0/builtin: must be one of: lifetime_event_count, lifetime_visit_count, first_visit, last_visit, returning_visitor (found "visits")',
    ]);
    // Enrichments test parameters and attributes, not built-ins.
    const enrichment = `accounts: [{ name: acme, profiles: [{ name: main, attributes: [{ id: 5201, name: Count, type: number, enrichments: [{ when: any_event, conditions: [[{ builtin: returning_visitor, operator: exists }]], action: { type: increment, by: 1 } }] }] }] }]`;
    expect(problems(enrichment).join("\n")).toContain(
      "/accounts/0/profiles/0/attributes/0/enrichments/0/conditions/0/0",
    );
  });

  test("DEC-PRO-01: an enrichment may test an attribute of the profile, not one it does not have", () => {
    const withCondition = (attribute: number) =>
      `accounts: [{ name: acme, profiles: [{ name: main, attributes: [{ id: 5201, name: Count, type: number }, { id: 5202, name: Regular, type: boolean, enrichments: [{ when: any_event, conditions: [[{ attribute: ${attribute}, operator: greater_than, value: 3 }]], action: { type: set_value, value: true } }] }] }] }]`;
    expect(parsed(withCondition(5201)).accounts[0]?.profiles[0]?.attributes[1]?.enrichments[0]?.conditions).toEqual([
      [{ attribute: 5201, operator: "greater_than", value: 3 }],
    ]);
    expect(problems(withCondition(5999))).toEqual([
      "/accounts/0/profiles/0/attributes/1/enrichments/0/conditions/0/0/attribute: no attribute 5999 in this profile",
    ]);
    expect(
      problems(
        withProfile(
          `audiences: [{ id: 7, name: R, conditions: [[{ builtin: first_visit, operator: greater_than, value: soon }]] }]`,
        ),
      ),
    ).toEqual([
      '/accounts/0/profiles/0/audiences/0/conditions/0/0/value: must be a number for the operator greater_than (found "soon")',
    ]);
  });

  test("DEC-DLE-02: an account and a profile name may have 250 characters together, not more", () => {
    const names = (account: number, profile: number) =>
      `accounts: [{ name: ${"a".repeat(account)}, profiles: [{ name: ${"p".repeat(profile)} }, { name: p }] }]`;
    expect(problems(names(200, 51))).toEqual([
      "/accounts/0/profiles/0/name: the account and profile names together have 251 characters; at most 250 are allowed",
    ]);
    expect(parsed(names(200, 50)).accounts[0]?.profiles.map((profile) => profile.name.length)).toEqual([50, 1]);
  });

  test("DEC-SES-05: a hash is a whole argon2id PHC string", () => {
    const message = 'must be an argon2id hash ("$argon2id$v=19$m=...,t=...,p=...$salt$hash") (found a string)';
    for (const hash of [
      "$argon2id$",
      "$argon2id$v=19$m=65536,t=2,p=1$c2FsdA",
      "$argon2id$v=18$m=65536,t=2,p=1$c2FsdA$aGFzaA",
      "$argon2id$v=19$m=1,t=2$c2FsdA$aGFzaA",
    ]) {
      expect(problems(`users: [{ email: a@example.com, password: { hash: "${hash}" } }]`)).toEqual([
        `/users/0/password/hash: ${message}`,
      ]);
    }
  });
});

describe("syntax errors give the line and column", () => {
  test("a trailing comma in JSON", () => {
    const error = failure(`{\n  "users": [\n    {"email": "a@example.com",}\n  ]\n}`, "json");
    expect(error.problems).toEqual([
      { path: "", line: 3, column: 31, message: 'a "," before "}" is not allowed in JSON' },
    ]);
    expect(error.format()).toBe('svc.config.json: line 3, column 31: a "," before "}" is not allowed in JSON');
  });

  test("an unquoted word and an unfinished document in JSON", () => {
    expect(failure(`{\n  "timing": fast\n}`, "json").format()).toBe(
      'svc.config.json: line 2, column 13: expected a value but found "fast"',
    );
    expect(failure(`{\n  "users": [\n`, "json").format()).toBe(
      "svc.config.json: line 3, column 1: expected a value but found end of file",
    );
  });

  test("a key given twice, in JSON and in YAML", () => {
    expect(failure(`{\n  "users": [],\n  "users": []\n}`, "json").format()).toBe(
      'svc.config.json: line 3, column 3: the key "users" is given twice in the same object',
    );
    expect(failure(`users: []\nusers: []\n`, "yaml").format()).toBe(
      "svc.config.yaml: line 2, column 1: a key is given twice in the same mapping",
    );
  });

  test("bad indentation in YAML", () => {
    const [problem] = failure(`accounts:\n  - name: acme\n   profiles: []\n`, "yaml").problems;
    expect(problem?.line).toBe(3);
    expect(problem?.column).toBeNumber();
  });

  test("an empty file", () => {
    expect(failure("", "json").format()).toBe("svc.config.json: line 1, column 1: the file is empty");
    expect(failure("# nothing\n", "yaml").format()).toBe("svc.config.yaml: line 1, column 1: the file is empty");
  });

  test("a file that is not an object", () => {
    expect(problems(`[1]`, "json")).toEqual(["/: must be an object (found a list)"]);
  });
});

describe("robustness", () => {
  test("checking never throws, whatever the JSON or text, and every problem has a path or a line", () => {
    const config = fc.record(
      {
        timing: fc.jsonValue(),
        accounts: fc.array(fc.record({ name: fc.jsonValue(), profiles: fc.jsonValue() })),
        users: fc.jsonValue(),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), config), fc.string(), (value, text) => {
        for (const [input, format] of [
          [JSON.stringify(value), "json"],
          [text, "json"],
          [text, "yaml"],
        ] as const) {
          const result = parseConfigText(input, format, "fuzz");
          if (!result.ok) {
            expect(result.error.problems.length).toBeGreaterThan(0);
            for (const problem of result.error.problems)
              expect(problem.path !== "" || problem.line !== undefined).toBe(true);
          }
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe("loading a file", () => {
  test("the extension chooses the format; any other extension is refused", async () => {
    const dir = await mkdtemp(join(tmpdir(), "svc-config-"));
    try {
      await writeFile(join(dir, "a.json"), `{"timing": "instant"}`);
      await writeFile(join(dir, "b.yml"), `timing: realistic\n`);
      await writeFile(join(dir, "c.toml"), `timing = "fast"\n`);
      const json = await loadConfigFile(join(dir, "a.json"));
      const yml = await loadConfigFile(join(dir, "b.yml"));
      const toml = await loadConfigFile(join(dir, "c.toml"));
      expect(json.ok && json.value.timing).toBe("instant");
      expect(yml.ok && yml.value.timing).toBe("realistic");
      expect(toml.ok ? "" : toml.error.format()).toBe(
        `${join(dir, "c.toml")}: the file name must end in .json, .yaml or .yml`,
      );
      const missing = await loadConfigFile(join(dir, "missing.yaml"));
      expect(missing.ok ? "" : missing.error.format()).toBe(
        `${join(dir, "missing.yaml")}: cannot read the file: the file does not exist`,
      );
    } finally {
      await rm(dir, { recursive: true });
    }
  });

  test("the demo file loads without problems and describes the demo tenants", async () => {
    const loaded = await loadConfigFile(demoConfigPath);
    if (!loaded.ok) throw new Error(loaded.error.format());
    const config = loaded.value;
    expect(config.timing).toBe("fast");
    expect(config.accounts.map((account) => [account.name, account.profiles.map((profile) => profile.name)])).toEqual([
      ["acme", ["main", "dev"]],
      ["globex", ["main"]],
    ]);
    expect(config.users.map((user) => [user.email, user.grants])).toEqual([
      ["demo@example.com", [{ account: "acme", profiles: "*" }]],
      ["globex@example.com", [{ account: "globex", profiles: "*" }]],
      ["nogrant@example.com", []],
    ]);
    const main = config.accounts[0]?.profiles[0];
    expect(main?.engines.map((engine) => [engine.id, engine.enabled, engine.keys])).toEqual([
      ["demo-engine", true, "names"],
      ["demo-engine-ids", true, "ids"],
      ["disabled-engine", false, "names"],
      ["demo-engine-attributes", true, "names"],
    ]);
    expect(main?.attributes.find((attribute) => attribute.id === 5206)?.pii).toBe(true);
    expect(main?.fileDefinitions[0]?.columns).toEqual([
      { column: "amount", attribute: 5207, type: "number" },
      { column: "purchased_at", attribute: 5204, type: "date", dateFormat: "yyyy-MM-dd HH:mm" },
    ]);
  });

  test("the demo's hashes are argon2id hashes of the demo passwords and keys", async () => {
    const loaded = await loadConfigFile(demoConfigPath);
    if (!loaded.ok) throw new Error(loaded.error.format());
    const secrets = [
      ...loaded.value.users.map((user) => [user.password, `${user.email.split("@")[0]}-password-1`] as const),
      [loaded.value.apiKeys[0]?.key, "demo-key-0001-acme"] as const,
      [loaded.value.apiKeys[1]?.key, "demo-key-0002-globex"] as const,
    ];
    expect(secrets).toHaveLength(5);
    for (const [source, clear] of secrets) {
      if (!source || !("hash" in source)) throw new Error("expected a hash");
      expect(source.hash).toStartWith("$argon2id$");
      expect(await Bun.password.verify(clear, source.hash)).toBe(true);
    }
  });

  test("the YAML demo loads to the same configuration as the JSON demo", async () => {
    const json = await loadConfigFile(demoConfigPath);
    const yaml = await loadConfigFile(demoYamlConfigPath);
    if (!json.ok) throw new Error(json.error.format());
    if (!yaml.ok) throw new Error(yaml.error.format());
    expect(yaml.value).toEqual(json.value);
  });
});

describe("the YAML parser is loaded only to read a YAML file (the server's start is measured)", () => {
  /** How many of the yaml package's modules a fresh process holds after loading `path` as a start does. */
  const yamlModulesAfterLoading = (path: string) =>
    modulesLoadedAfter(
      `const { loadConfigFile } = await import(${JSON.stringify(`${import.meta.dir}/config.loader.ts`)});
      const result = await loadConfigFile(${JSON.stringify(path)});
      if (!result.ok) throw new Error(result.error.format());`,
      "/node_modules/yaml/",
    );

  test("not for a JSON file, and for a YAML one", () => {
    expect(yamlModulesAfterLoading(demoConfigPath)).toBe(0);
    expect(yamlModulesAfterLoading(demoYamlConfigPath)).toBeGreaterThan(0);
  });
});
