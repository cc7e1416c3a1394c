import { readFileSync } from "node:fs";
import { Type, type Static } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { demoFixtures, type TargetFixtures } from "./target.ts";

/**
 * A target file (JSON) says where an implementation is and which tenants, users and keys the scenarios may
 * use, so that an implementation with other demo data can be tested. Every field is optional; command-line
 * flags win over the file, and the file over svc-hub's demo tenants.
 */
const User = Type.Object({ email: Type.String(), password: Type.String(), apiKey: Type.String() }, { additionalProperties: false });
const TargetFileSchema = Type.Object(
  {
    name: Type.Optional(Type.String()),
    base: Type.Optional(Type.String({ description: "{base_url}: the management APIs" })),
    collect: Type.Optional(Type.String({ description: "{collect_url}: the collection endpoint" })),
    moments: Type.Optional(Type.String({ description: "{moments_url}: the visitor-data API" })),
    adminToken: Type.Optional(Type.String({ description: "svc-hub's admin token, for scenarios that need the admin API" })),
    fixtures: Type.Optional(
      Type.Object(
        {
          account: Type.Optional(Type.String()),
          profile: Type.Optional(Type.String()),
          otherProfile: Type.Optional(Type.String()),
          otherAccount: Type.Optional(Type.String()),
          user: Type.Optional(User),
          otherUser: Type.Optional(User),
          userWithoutGrants: Type.Optional(Type.Object({ email: Type.String(), password: Type.String() }, { additionalProperties: false })),
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
  const problems = [...Value.Errors(TargetFileSchema, value)].slice(0, 5).map((problem) => `${problem.path || "/"}: ${problem.message}`);
  if (problems.length > 0) throw new Error(`target file ${path}:\n  ${problems.join("\n  ")}`);
  return value as TargetFile;
}

export function fixturesOf(file: TargetFile | null): TargetFixtures {
  return { ...demoFixtures, ...(file?.fixtures ?? {}) };
}
