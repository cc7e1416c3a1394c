import { createIsBotFromList, findBotPatterns, list } from "isbot";
import { genericHttpClientUserAgents, matchesVendorBotToken } from "../../core/collect/index.ts";
import type { BotFilter } from "../../core/ports/index.ts";

/**
 * DEC-COL-06: the isbot patterns that name a generic HTTP client library (wget, node, python-requests and
 * urllib, Java, libwww-perl, rest-client and RestSharp, PostmanRuntime), in isbot's own spelling. Only these
 * leave isbot's list, with the one of a lone product token (below): its other broad patterns (`http`, `.com`,
 * `url`) also describe crawlers such as Yeti, heritrix or Dataprovider.com, so they stay (COL-13).
 */
const clientLibraryPatterns: ReadonlySet<string> = new Set([
  "^wget",
  "node\\b",
  "^python",
  "java(?!;)",
  "\\bperl\\b",
  "^rest",
  "^postman",
]);

/** `Mozilla`, `Mozilla/5.0`: the token every browser's User-Agent starts with, and nothing after it. */
const browserTokenAlone = /^\s*mozilla(?:\/[\d.]*)?\s*$/i;

/** isbot's list as svc-hub judges with it: worked out by the first User-Agent judged (a few hundred patterns, each tried against several User-Agents, about 100 ms), not at start. */
interface Judges {
  readonly removed: ReadonlySet<string>;
  readonly isCrawler: (userAgent: string) => boolean;
  readonly isCrawlerLedByClient: (userAgent: string) => boolean;
}

let judges: Judges | null = null;

function judgesOfTheList(): Judges {
  if (judges) return judges;
  /**
   * DEC-COL-06: the pattern isbot holds against a User-Agent that is one product token and nothing else
   * (`checkout-service/2.3.1`, `Ktor client`), asked of isbot as for the clients below. That is what a
   * program sends, a company's own backend as much as a library: server-to-server collection is legitimate,
   * and an event dropped for it is lost behind a 200. A crawler that names itself this way alone (`Qwantify/1.0`)
   * is let through; one that adds a URL, a .com, or a word such as bot, spider or archive is still filtered.
   */
  const productTokenPatterns: ReadonlySet<string> = new Set(findBotPatterns("checkout-service/2.3.1"));
  const removed: ReadonlySet<string> = new Set(
    list.filter((pattern) => clientLibraryPatterns.has(pattern) || productTokenPatterns.has(pattern)),
  );
  /**
   * The patterns that a generic client's own User-Agent trips (its name, or the broad `http`, `url` and
   * `name/version` shapes); asked of isbot, as its documentation shows for `createIsBotFromList`, so they
   * follow the library's list as it changes. They are not held against a User-Agent that a client leads.
   */
  const patternsOfGenericClients: ReadonlySet<string> = new Set(
    genericHttpClientUserAgents.flatMap((userAgent) => findBotPatterns(userAgent)),
  );
  judges = {
    removed,
    isCrawler: createIsBotFromList(list.filter((pattern) => !removed.has(pattern))),
    isCrawlerLedByClient: createIsBotFromList(
      list.filter((pattern) => !removed.has(pattern) && !patternsOfGenericClients.has(pattern)),
    ),
  };
  return judges;
}

/** DEC-COL-06: the patterns removed from isbot's list for every User-Agent (those that name a client library, and the one of a lone product token). */
export function removedCrawlerPatterns(): ReadonlySet<string> {
  return judgesOfTheList().removed;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * A User-Agent that starts with the product name of a generic client (`curl`, `Go-http-client`,
 * `node-fetch`, ...: the first word of each entry of the core list), as a whole word.
 */
const leadingGenericClient = new RegExp(
  `^(?:${[...new Set(genericHttpClientUserAgents.map((userAgent) => /^[^/ ]+/.exec(userAgent)?.[0] ?? userAgent))].map(escapeRegExp).join("|")})(?![\\w.-])`,
  "i",
);

/**
 * DEC-COL-06, COL-13: a User-Agent with a token of the vendor's list, or one isbot (without the patterns
 * naming a client library) recognises as a crawler. A User-Agent led by a generic client is judged without
 * the patterns such a client trips by itself, so curl or Go-http-client passes but `python-requests …
 * ExampleCrawler` does not. A missing or empty User-Agent is not a bot.
 */
export function judgeUserAgent(userAgent: string | null | undefined): boolean {
  if (!userAgent) return false;
  if (matchesVendorBotToken(userAgent)) return true;
  // A lone product token is a program (productTokenPatterns), except a browser's own token without the rest
  // of a browser's User-Agent: `Mozilla/5.0` alone is a scraper passing for a browser, not a backend.
  if (browserTokenAlone.test(userAgent)) return true;
  const { isCrawler, isCrawlerLedByClient } = judgesOfTheList();
  return leadingGenericClient.test(userAgent) ? isCrawlerLedByClient(userAgent) : isCrawler(userAgent);
}

/** How many User-Agents' verdicts are kept, and the longest kept (a longer one is judged every time). */
export const rememberedUserAgents = 4096;
export const longestRememberedUserAgent = 512;

/** Verdicts in the order they were first reached; the oldest goes when the map is full. */
const verdicts = new Map<string, boolean>();

/**
 * `judgeUserAgent`, remembered. isbot's list is one regular expression of several hundred alternatives,
 * tried on every collected event: about 15% of the HTTP thread's time under GET /event load
 * (bench/FINDINGS.md, ninth round), for the same few browser User-Agents again and again. The verdict
 * depends on the User-Agent alone, so a kept one is the same answer; at most `rememberedUserAgents` of at
 * most 512 characters each (about 2 MB) are kept.
 */
export function isBotUserAgent(userAgent: string | null | undefined): boolean {
  if (!userAgent) return false;
  const known = verdicts.get(userAgent);
  if (known !== undefined) return known;
  const verdict = judgeUserAgent(userAgent);
  if (userAgent.length <= longestRememberedUserAgent) {
    if (verdicts.size >= rememberedUserAgents) verdicts.delete(verdicts.keys().next().value as string);
    verdicts.set(userAgent, verdict);
  }
  return verdict;
}

/** The BotFilter port of the collection use case: isbot's verdict, remembered (isBotUserAgent). */
export const isbotFilter: BotFilter = { isBot: isBotUserAgent };

/** How many verdicts are kept now (for tests). */
export function rememberedVerdictCount(): number {
  return verdicts.size;
}
