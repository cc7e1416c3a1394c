/**
 * Issue 33: the path patterns of faults (`POST /admin/faults`) and of the request journal's `path` filter are
 * URLPattern pathnames (docs/testing-with-svc-hub.md, "Making svc-hub fail on purpose").
 */
import { describe, expect, it } from "bun:test";
import { compilePathPattern } from "./path-pattern.ts";

function matcher(pattern: string): (path: string) => boolean {
  const compiled = compilePathPattern(pattern);
  if (!compiled.ok) throw new Error(`${pattern} refused: ${compiled.error}`);
  return compiled.value;
}

describe("path patterns (URLPattern's pathname syntax)", () => {
  it("matches :name as one segment and * across segments", () => {
    const template = matcher("/v1/dle/accounts/:account/profiles/:profile/datalayers/:dl");
    expect(template("/v1/dle/accounts/acme/profiles/main/datalayers/dl1")).toBe(true);
    expect(template("/v1/dle/accounts/acme/profiles/main/datalayers/dl1/x")).toBe(false);
    expect(template("/v1/dle/accounts//profiles/main/datalayers/dl1")).toBe(false);
    const wildcard = matcher("/v1/dle/*");
    expect(wildcard("/v1/dle/accounts/acme/profiles/main/datalayers/dl1")).toBe(true);
    expect(wildcard("/v2/auth")).toBe(false);
    expect(matcher("*")("/event")).toBe(true);
  });

  it("takes the rest literally (a dot is a dot), and a choice as URLPattern does", () => {
    expect(matcher("/a.b")("/aXb")).toBe(false);
    expect(matcher("/a.b")("/a.b")).toBe(true);
    const choice = matcher("/v2/(auth|visitor)/*");
    expect([choice("/v2/visitor/x"), choice("/v2/auth/"), choice("/v2/other/x")]).toEqual([true, true, false]);
  });

  it("matches a route's template as the journal keeps it (/dle/:account/...)", () => {
    expect(matcher("/v1/dle/accounts/:account/*")("/v1/dle/accounts/:account/profiles/:profile/datalayers")).toBe(true);
    expect(matcher("/v1/dle/accounts/acme/*")("/v1/dle/accounts/:account/profiles/:profile/datalayers")).toBe(false);
  });

  it("reads {name}, the earlier spelling of one segment, as :name", () => {
    const earlier = matcher("/dle/{account}/{profile}/x");
    expect([earlier("/dle/acme/main/x"), earlier("/dle/acme/x"), earlier("/dle/acme/main/y")]).toEqual([
      true,
      false,
      false,
    ]);
  });

  it("refuses what URLPattern cannot read", () => {
    const refusal = (pattern: string) => {
      const compiled = compilePathPattern(pattern);
      return compiled.ok ? "accepted" : compiled.error;
    };
    expect(refusal("/a(b")).toContain("is not a URLPattern pathname");
    expect(refusal("/a+b")).toContain("is not a URLPattern pathname");
  });
});
