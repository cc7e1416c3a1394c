/**
 * What the conformance suite runs against: an implementation reached over HTTP at up to three base
 * addresses (interface.md: {base_url}, {collect_url}, {moments_url}), or svc-hub's own app in-process.
 */
export type TargetArea = "base" | "collect" | "moments";

export interface TargetUrls {
  readonly base: string;
  readonly collect: string;
  readonly moments: string;
}

/** The tenants, users and keys the scenarios may rely on (the demo tenants of demo.md by default). */
export interface TargetFixtures {
  readonly account: string;
  readonly profile: string;
  readonly otherProfile: string;
  readonly otherAccount: string;
  readonly user: { readonly email: string; readonly password: string; readonly apiKey: string };
  readonly otherUser: { readonly email: string; readonly password: string; readonly apiKey: string };
  readonly userWithoutGrants: { readonly email: string; readonly password: string };
}

export interface Target {
  readonly name: string;
  readonly urls: TargetUrls;
  /** The bearer token of svc-hub's admin API, when the target has one and it is known. */
  readonly adminToken: string | null;
  readonly fixtures: TargetFixtures;
  send(request: Request): Promise<Response>;
}

export const demoFixtures: TargetFixtures = {
  account: "acme",
  profile: "main",
  otherProfile: "dev",
  otherAccount: "globex",
  user: { email: "demo@example.com", password: "demo-password-1", apiKey: "demo-key-0001-acme" },
  otherUser: { email: "globex@example.com", password: "globex-password-1", apiKey: "demo-key-0002-globex" },
  userWithoutGrants: { email: "nogrant@example.com", password: "nogrant-password-1" },
};

function trimSlash(url: string): string {
  return url.replace(/\/+$/, "");
}

/** A target reached over the network. Redirects are not followed: a scenario sees exactly what was answered. */
export function urlTarget(options: {
  readonly base: string;
  readonly collect?: string;
  readonly moments?: string;
  readonly adminToken?: string | null;
  readonly fixtures?: TargetFixtures;
  readonly name?: string;
}): Target {
  const base = trimSlash(options.base);
  return {
    name: options.name ?? base,
    urls: { base, collect: trimSlash(options.collect ?? base), moments: trimSlash(options.moments ?? base) },
    adminToken: options.adminToken ?? null,
    fixtures: options.fixtures ?? demoFixtures,
    send: (request) => fetch(request, { redirect: "manual" }),
  };
}

/** The host name in-process requests carry; any name works, it only has to look like a real one. */
export const inProcessBase = "http://svc-hub.in-process";

/** A target that hands each request straight to an app's fetch handler, without a socket. */
export function inProcessTarget(options: {
  readonly handle: (request: Request) => Promise<Response> | Response;
  readonly adminToken: string | null;
  readonly fixtures?: TargetFixtures;
}): Target {
  return {
    name: "in-process",
    urls: { base: inProcessBase, collect: inProcessBase, moments: inProcessBase },
    adminToken: options.adminToken,
    fixtures: options.fixtures ?? demoFixtures,
    send: async (request) => options.handle(request),
  };
}
