/**
 * Issue 33, part 1: the typed client's types are the OpenAPI document's. A route whose schema changed without
 * `npm run client:generate` fails here instead of giving client users types that lie.
 */
import { describe, expect, it } from "bun:test";
import { generateClientTypes, readCommittedClientTypes } from "../tools/generate-client-types.ts";

describe("the typed client's generated types", () => {
  it("match the OpenAPI document the routes publish today (else run npm run client:generate)", async () => {
    const generated = await generateClientTypes();
    const committed = readCommittedClientTypes();
    if (generated !== committed) {
      throw new Error(
        "client/openapi.types.ts differs from what the OpenAPI document generates: run `npm run client:generate` and commit the result",
      );
    }
    expect(generated).toContain('"/v1/login"');
  });
});
