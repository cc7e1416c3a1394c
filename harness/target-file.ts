import { readFileSync } from "node:fs";
import { type Static, Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { demoFixtures, type TargetFixtures } from "./target.ts";

/**
 * A target file (JSON) says where an implementation is and which tenants, users, keys and configuration
 * (attributes, audience, engines, file definition, published revision) the scenarios may use, so that an
 * implementation with other demo data can be tested. Every field is optional; command-line flags win over
 * the file, and the file over svc-hub's demo tenants. Within a group (`visitorIdAttributes`, `attributes`,
 * `engines`, `fileDefinition`, `revision`) each member is optional too; an attribute, like a user, is given
 * whole. What each fixture must be in the implementation's configuration: TargetFixtures (target.ts). An optional
 * fixture (engines.attributesOnly) left out is absent, and the scenarios that need it are skipped.
 */
const Name = (description?: string) => Type.String({ minLength: 1, ...(description ? { description } : {}) });
const Text = (description: string) => Type.String({ description });
const User = (description: string) =>
  Type.Object(
    { email: Type.String(), password: Type.String(), apiKey: Type.String() },
    { additionalProperties: false, description },
  );
const Attribute = (description: string) =>
  Type.Object({ id: Type.Integer({ minimum: 0 }), name: Name() }, { additionalProperties: false, description });
const ParameterAttribute = (description: string) =>
  Type.Object(
    { id: Type.Integer({ minimum: 0 }), name: Name(), parameter: Name() },
    { additionalProperties: false, description },
  );
export const TargetFileSchema = Type.Object(
  {
    $schema: Type.Optional(
      Type.String({ description: "The JSON Schema of this file, for editors (conformance/target.schema.json)" }),
    ),
    name: Type.Optional(Type.String({ description: "The target's name in the reports" })),
    base: Type.Optional(Type.String({ description: "{base_url}: the management APIs" })),
    collect: Type.Optional(Type.String({ description: "{collect_url}: the collection endpoint" })),
    moments: Type.Optional(Type.String({ description: "{moments_url}: the visitor-data API" })),
    adminToken: Type.Optional(
      Type.String({
        description:
          "The bearer token of the target's admin routes (DEC-OPS-04 and the capabilities), for the scenarios that need them",
      }),
    ),
    fixtures: Type.Optional(
      Type.Object(
        {
          account: Type.Optional(Text("An account (demo: acme)")),
          profile: Type.Optional(
            Text("A profile of account, the one whose configuration the scenarios read (demo: main)"),
          ),
          otherProfile: Type.Optional(
            Text("Another profile of account; PRV-06 needs it to have visitorIdAttributes.email too (demo: dev)"),
          ),
          otherAccount: Type.Optional(Text("A second account (demo: globex)")),
          otherAccountProfile: Type.Optional(Name("A profile of otherAccount (demo: main)")),
          user: Type.Optional(User("A user with a grant on account, and its API key")),
          otherUser: Type.Optional(User("A user with a grant on otherAccount only, and its API key")),
          userWithoutGrants: Type.Optional(
            Type.Object(
              { email: Type.String(), password: Type.String() },
              { additionalProperties: false, description: "A user without any grant" },
            ),
          ),
          purchaseEvent: Type.Optional(
            Name("The event name that sets hasPurchased and lastPurchase and assigns the badge (demo: purchase)"),
          ),
          visitorIdAttributes: Type.Optional(
            Type.Object(
              {
                email: Type.Optional(ParameterAttribute("The e-mail visitor ID attribute (demo: 5120 email_address)")),
                customer: Type.Optional(
                  ParameterAttribute("The customer ID visitor ID attribute (demo: 5121 customer_id)"),
                ),
              },
              { additionalProperties: false, description: "The visitor ID attributes of account/profile" },
            ),
          ),
          attributes: Type.Optional(
            Type.Object(
              {
                eventCount: Type.Optional(Attribute("A number, +1 on any event (demo: 5201)")),
                lastEventName: Type.Optional(Attribute("A string, set from svc_event on any event (demo: 5202)")),
                hasPurchased: Type.Optional(Attribute("A boolean, true on the purchase event (demo: 5203)")),
                lastPurchase: Type.Optional(Attribute("A date, the purchase event's time (demo: 5204)")),
                email: Type.Optional(Attribute("A PII string, from the e-mail visitor ID's parameter (demo: 5206)")),
                lastPurchaseAmount: Type.Optional(
                  ParameterAttribute("A number, from its parameter on any event that has it (demo: 5207 amount)"),
                ),
              },
              { additionalProperties: false, description: "The attributes of account/profile the scenarios read back" },
            ),
          ),
          badge: Type.Optional(Attribute("A badge assigned on the purchase event (demo: 5205 Buyer)")),
          audience: Type.Optional(Attribute("An audience of the visitors with hasPurchased true (demo: 7 Purchasers)")),
          engines: Type.Optional(
            Type.Object(
              {
                names: Type.Optional(Name("Enabled, keyed by names (demo: demo-engine)")),
                ids: Type.Optional(Name("Enabled, keyed by ids (demo: demo-engine-ids)")),
                disabled: Type.Optional(Name("Disabled (demo: disabled-engine)")),
                attributesOnly: Type.Optional(
                  Name("Optional: enabled, keyed by names, selecting only eventCount and lastEventName (MOM-05)"),
                ),
              },
              {
                additionalProperties: false,
                description: "The moments engines of account/profile; the enabled ones allow example.com",
              },
            ),
          ),
          fileDefinition: Type.Optional(
            Type.Object(
              {
                prefix: Type.Optional(Name("Files named <prefix>_<id>.csv use it (demo: purchases)")),
                visitorIdColumn: Type.Optional(Name("The column mapped to the e-mail visitor ID (demo: email)")),
                amountColumn: Type.Optional(Name("A number column mapped to lastPurchaseAmount (demo: amount)")),
                dateColumn: Type.Optional(Name("A date column mapped to lastPurchase (demo: purchased_at)")),
                dateFormat: Type.Optional(Name("The date column's format (demo: yyyy-MM-dd HH:mm)")),
              },
              { additionalProperties: false, description: "The file definition of account/profile" },
            ),
          ),
          revision: Type.Optional(
            Type.Object(
              {
                target: Type.Optional(Name("The target a revision is published on before the run (demo: prod)")),
                files: Type.Optional(
                  Type.Array(Name(), { minItems: 1, description: "The files of its newest revision" }),
                ),
              },
              { additionalProperties: false, description: "The published revision of account/profile" },
            ),
          ),
        },
        {
          additionalProperties: false,
          description:
            "The tenants, users and configuration the scenarios use; each left out is demo.md's, a group given in part keeps the rest",
        },
      ),
    ),
  },
  { additionalProperties: false },
);

export type TargetFile = Static<typeof TargetFileSchema>;

/** The fixtures of a target file: each one optional, a group given in part (see fixturesOf). */
export type TargetFileFixtures = NonNullable<TargetFile["fixtures"]>;

/**
 * The JSON Schema (draft 2020-12) of a target file, as conformance/target.schema.json holds it: TargetFileSchema,
 * from which the TargetFile type is derived, so that the two cannot differ (tools/sync-target-schema.ts writes it;
 * a test checks the file against this).
 */
export function targetFileJsonSchema(): Record<string, unknown> {
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: "A target file of the svc-hub conformance suite",
    description:
      "Where an implementation of the interface is and which tenants, users, keys and configuration the scenarios use; every field is optional (see conformance/README.md).",
    ...(JSON.parse(JSON.stringify(TargetFileSchema)) as Record<string, unknown>),
  };
}

export function readTargetFile(path: string): TargetFile {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new Error(`target file ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const problems = targetFileProblems(value);
  if (problems.length > 0) throw new Error(`target file ${path}:\n  ${problems.join("\n  ")}`);
  return value as TargetFile;
}

/** What is wrong with a target file's content, at most five problems, each as `<JSON pointer>: <what>, got <value>`. */
export function targetFileProblems(value: unknown): string[] {
  return [...Value.Errors(TargetFileSchema, value)].slice(0, 5).map((problem) => {
    const got = problem.value === undefined ? "" : `, got ${JSON.stringify(problem.value)?.slice(0, 60)}`;
    return `${problem.path || "/"}: ${problem.message}${got}`;
  });
}

/** The fixtures given by groups; a group given in part keeps the demo values of the members it leaves out. */
const groups = ["visitorIdAttributes", "attributes", "engines", "fileDefinition", "revision"] as const;

/**
 * The fixtures of a target file, `defaults` for what it leaves out (a user or an attribute is given whole):
 * the demo tenants of demo.md, which have no optional fixture (such as engines.attributesOnly), unless the
 * caller gives others (an in-process module's fixtures, say).
 */
export function fixturesOf(file: TargetFile | null, defaults: TargetFixtures = demoFixtures): TargetFixtures {
  const given = file?.fixtures ?? {};
  const merged: Record<string, unknown> = { ...defaults, ...given };
  for (const group of groups) merged[group] = { ...defaults[group], ...given[group] };
  return merged as unknown as TargetFixtures;
}
