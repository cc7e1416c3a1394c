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
const Name = Type.String({ minLength: 1 });
const User = Type.Object(
  { email: Type.String(), password: Type.String(), apiKey: Type.String() },
  { additionalProperties: false },
);
const Attribute = Type.Object({ id: Type.Integer({ minimum: 0 }), name: Name }, { additionalProperties: false });
const ParameterAttribute = Type.Object(
  { id: Type.Integer({ minimum: 0 }), name: Name, parameter: Name },
  { additionalProperties: false },
);
const TargetFileSchema = Type.Object(
  {
    name: Type.Optional(Type.String()),
    base: Type.Optional(Type.String({ description: "{base_url}: the management APIs" })),
    collect: Type.Optional(Type.String({ description: "{collect_url}: the collection endpoint" })),
    moments: Type.Optional(Type.String({ description: "{moments_url}: the visitor-data API" })),
    adminToken: Type.Optional(
      Type.String({ description: "svc-hub's admin token, for scenarios that need the admin API" }),
    ),
    fixtures: Type.Optional(
      Type.Object(
        {
          account: Type.Optional(Type.String()),
          profile: Type.Optional(Type.String()),
          otherProfile: Type.Optional(Type.String()),
          otherAccount: Type.Optional(Type.String()),
          otherAccountProfile: Type.Optional(Name),
          user: Type.Optional(User),
          otherUser: Type.Optional(User),
          userWithoutGrants: Type.Optional(
            Type.Object({ email: Type.String(), password: Type.String() }, { additionalProperties: false }),
          ),
          purchaseEvent: Type.Optional(Name),
          visitorIdAttributes: Type.Optional(
            Type.Object(
              { email: Type.Optional(ParameterAttribute), customer: Type.Optional(ParameterAttribute) },
              { additionalProperties: false },
            ),
          ),
          attributes: Type.Optional(
            Type.Object(
              {
                eventCount: Type.Optional(Attribute),
                lastEventName: Type.Optional(Attribute),
                hasPurchased: Type.Optional(Attribute),
                lastPurchase: Type.Optional(Attribute),
                email: Type.Optional(Attribute),
                lastPurchaseAmount: Type.Optional(ParameterAttribute),
              },
              { additionalProperties: false },
            ),
          ),
          badge: Type.Optional(Attribute),
          audience: Type.Optional(Attribute),
          engines: Type.Optional(
            Type.Object(
              {
                names: Type.Optional(Name),
                ids: Type.Optional(Name),
                disabled: Type.Optional(Name),
                attributesOnly: Type.Optional(Name),
              },
              { additionalProperties: false },
            ),
          ),
          fileDefinition: Type.Optional(
            Type.Object(
              {
                prefix: Type.Optional(Name),
                visitorIdColumn: Type.Optional(Name),
                amountColumn: Type.Optional(Name),
                dateColumn: Type.Optional(Name),
                dateFormat: Type.Optional(Name),
              },
              { additionalProperties: false },
            ),
          ),
          revision: Type.Optional(
            Type.Object(
              { target: Type.Optional(Name), files: Type.Optional(Type.Array(Name, { minItems: 1 })) },
              { additionalProperties: false },
            ),
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export type TargetFile = Static<typeof TargetFileSchema>;

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
 * target is svc-hub's own demo (svcHubDemoFixtures, for --in-process).
 */
export function fixturesOf(file: TargetFile | null, defaults: TargetFixtures = demoFixtures): TargetFixtures {
  const given = file?.fixtures ?? {};
  const merged: Record<string, unknown> = { ...defaults, ...given };
  for (const group of groups) merged[group] = { ...defaults[group], ...given[group] };
  return merged as unknown as TargetFixtures;
}
