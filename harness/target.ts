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

/** An attribute of the profile's configuration, as the scenarios name it: its id, and its name as answered by name. */
export interface AttributeFixture {
  readonly id: number;
  readonly name: string;
}

/** An attribute filled from an event parameter: the parameter the scenarios send it in. */
export interface ParameterAttributeFixture extends AttributeFixture {
  readonly parameter: string;
}

/**
 * The visitor ID attributes of the fixtures' account and profile (VID-02, VID-08, PRV-*): a parameter of an
 * event naming one stitches the event's visitor to the known visitor
 * `__<account>_<profile>__<id>_<value>__`, and the privacy API looks visitors up by them.
 */
export interface VisitorIdAttributeFixtures {
  /** Demo: 5120 email_address, from the parameter email_address. The scenarios send e-mail addresses in it. */
  readonly email: ParameterAttributeFixture;
  /** Demo: 5121 customer_id, from the parameter customer_id. Any text (spaces, +, &, %, non-ASCII) must be a valid value. */
  readonly customer: ParameterAttributeFixture;
}

/**
 * The attributes of the fixtures' account and profile that the moments and privacy scenarios read back. The
 * scenarios send events named `view`, `cart`, `login` and the purchase event, and expect every section of a
 * visitor (metrics, properties, flags, dates, badges, audiences) to hold exactly what these attributes, the
 * badge and the audience make of them: no other attribute of the profile may be set by such events.
 */
export interface AttributeFixtures {
  /** Demo: 5201 Lifetime event count. A number, +1 on any event. */
  readonly eventCount: AttributeFixture;
  /** Demo: 5202 Last event name. A string, set from svc_event on any event. */
  readonly lastEventName: AttributeFixture;
  /** Demo: 5203 Has purchased. A boolean, set to true when svc_event equals the purchase event. */
  readonly hasPurchased: AttributeFixture;
  /** Demo: 5204 Last purchase. A date, set to the event's time when svc_event equals the purchase event. */
  readonly lastPurchase: AttributeFixture;
  /** Demo: 5206 Email. A string, PII, set from the parameter of the e-mail visitor ID attribute. */
  readonly email: AttributeFixture;
  /** Demo: 5207 Last purchase amount. A number, set from the parameter named here on any event that has it. */
  readonly lastPurchaseAmount: ParameterAttributeFixture;
}

/**
 * The engines of the fixtures' account and profile (moments API). The enabled ones allow the domain
 * example.com with its subdomains (the scenarios ask as https://shop.example.com) but not example.net or
 * notexample.com, and, but for `attributesOnly`, select exactly the audience, the badge and the attributes
 * eventCount, lastEventName, hasPurchased, lastPurchase and email (which, being PII, must never be answered),
 * not lastPurchaseAmount.
 */
export interface EngineFixtures {
  /** Demo: demo-engine. Enabled, keyed by names. */
  readonly names: string;
  /** Demo: demo-engine-ids. Enabled, keyed by ids (as the `names` engine otherwise). */
  readonly ids: string;
  /** Demo: disabled-engine. Disabled. */
  readonly disabled: string;
  /**
   * Optional; demo.md has no such engine, svc-hub's demo has demo-engine-attributes. Enabled, keyed by names,
   * allowing what the others allow, and selecting only the attributes eventCount and lastEventName: neither the
   * audience nor the badge (MOM-05: what an engine does not select is not answered, though the visitor has it).
   * Without it the scenario that needs it is skipped, saying so.
   */
  readonly attributesOnly?: string;
}

/**
 * The file definition of the fixtures' account and profile (files API). Its rows become events named the
 * purchase event of the known visitor `__<account>_<profile>__<visitorIdAttributes.email.id>_<value>__`,
 * with the columns stored by their names.
 */
export interface FileDefinitionFixture {
  /** Demo: purchases. The files named `<prefix>_<id>.csv` are imported with this definition. */
  readonly prefix: string;
  /** Demo: email. The visitor ID column, mapped to the e-mail visitor ID attribute. */
  readonly visitorIdColumn: string;
  /** Demo: amount. A number column (mapped to lastPurchaseAmount): `12.50` reads 12.5, `twelve` fails the row. */
  readonly amountColumn: string;
  /** Demo: purchased_at. A date column (mapped to lastPurchase), read with dateFormat. */
  readonly dateColumn: string;
  /**
   * Demo: yyyy-MM-dd HH:mm. The date column's format, in the letters yyyy, MM, dd, HH, mm, ss (and 'quoted'
   * text); the scenarios write dates with it. It must not read `31.01.2024 09:30` nor `2024-01-31T09:30:00Z`.
   */
  readonly dateFormat: string;
}

/** The published revision of the fixtures' account and profile (revisions API). */
export interface RevisionFixture {
  /** Demo: prod. The target a revision is published on before the run; no scenario publishes to it. */
  readonly target: string;
  /** Demo: utag.js, utag.1.js, utag.2.js, utag.sync.js, mobile.html. The files of its newest revision on that target. */
  readonly files: readonly string[];
}

/**
 * The tenants, users and keys the scenarios may rely on, and the configuration of the account and profile
 * they read visitor data, files and revisions of (the demo tenants of demo.md by default). An implementation
 * maps each to its own configuration; the doc comments say what that configuration must do.
 */
export interface TargetFixtures {
  /**
   * Demo: acme. The collection scenarios name the profile in every event (svc_profile), so no profile needs a
   * particular name; only the check of DEC-COL-01's default (svc_profile absent means main) sends an event
   * without one, for the first of profile and otherProfile (of account) and otherAccountProfile (of
   * otherAccount) that is named main, and is skipped when none is.
   */
  readonly account: string;
  /** Demo: main. */
  readonly profile: string;
  /**
   * Demo: dev. Another profile of account; collection to it must be accepted. The scenario of PRV-06 across
   * profiles needs it to have the visitor ID attribute visitorIdAttributes.email too, and is skipped otherwise
   * (demo.md gives dev none; svc-hub's demo gives it the visitor ID attributes of main).
   */
  readonly otherProfile: string;
  /** Demo: globex. */
  readonly otherAccount: string;
  /** A profile of otherAccount (demo: main). */
  readonly otherAccountProfile: string;
  readonly user: { readonly email: string; readonly password: string; readonly apiKey: string };
  readonly otherUser: { readonly email: string; readonly password: string; readonly apiKey: string };
  readonly userWithoutGrants: { readonly email: string; readonly password: string };
  /**
   * Demo: purchase. The event name (svc_event) that sets hasPurchased and lastPurchase, assigns the badge and
   * so puts the visitor in the audience; it must not be `view`, `cart` or `login`.
   */
  readonly purchaseEvent: string;
  readonly visitorIdAttributes: VisitorIdAttributeFixtures;
  readonly attributes: AttributeFixtures;
  /** Demo: 5205 Buyer. A badge assigned when svc_event equals the purchase event. */
  readonly badge: AttributeFixture;
  /** Demo: 7 Purchasers. An audience whose condition is hasPurchased is true. */
  readonly audience: AttributeFixture;
  readonly engines: EngineFixtures;
  readonly fileDefinition: FileDefinitionFixture;
  readonly revision: RevisionFixture;
}

export interface Target {
  readonly name: string;
  readonly urls: TargetUrls;
  /** The bearer token of the target's admin routes (DEC-OPS-01, DEC-OPS-04), when it has them and it is known. */
  readonly adminToken: string | null;
  readonly fixtures: TargetFixtures;
  send(request: Request): Promise<Response>;
}

export const demoFixtures: TargetFixtures = {
  account: "acme",
  profile: "main",
  otherProfile: "dev",
  otherAccount: "globex",
  otherAccountProfile: "main",
  user: { email: "demo@example.com", password: "demo-password-1", apiKey: "demo-key-0001-acme" },
  otherUser: { email: "globex@example.com", password: "globex-password-1", apiKey: "demo-key-0002-globex" },
  userWithoutGrants: { email: "nogrant@example.com", password: "nogrant-password-1" },
  purchaseEvent: "purchase",
  visitorIdAttributes: {
    email: { id: 5120, name: "email_address", parameter: "email_address" },
    customer: { id: 5121, name: "customer_id", parameter: "customer_id" },
  },
  attributes: {
    eventCount: { id: 5201, name: "Lifetime event count" },
    lastEventName: { id: 5202, name: "Last event name" },
    hasPurchased: { id: 5203, name: "Has purchased" },
    lastPurchase: { id: 5204, name: "Last purchase" },
    email: { id: 5206, name: "Email" },
    lastPurchaseAmount: { id: 5207, name: "Last purchase amount", parameter: "amount" },
  },
  badge: { id: 5205, name: "Buyer" },
  audience: { id: 7, name: "Purchasers" },
  engines: { names: "demo-engine", ids: "demo-engine-ids", disabled: "disabled-engine" },
  fileDefinition: {
    prefix: "purchases",
    visitorIdColumn: "email",
    amountColumn: "amount",
    dateColumn: "purchased_at",
    dateFormat: "yyyy-MM-dd HH:mm",
  },
  revision: { target: "prod", files: ["utag.js", "utag.1.js", "utag.2.js", "utag.sync.js", "mobile.html"] },
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
  /** The target's name in the reports (default "in-process"). */
  readonly name?: string;
}): Target {
  return {
    name: options.name ?? "in-process",
    urls: { base: inProcessBase, collect: inProcessBase, moments: inProcessBase },
    adminToken: options.adminToken,
    fixtures: options.fixtures ?? demoFixtures,
    send: async (request) => options.handle(request),
  };
}
