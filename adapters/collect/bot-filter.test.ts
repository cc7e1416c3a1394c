import { describe, expect, it } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { isbot } from "isbot";
import { genericHttpClientUserAgents, vendorBotTokens } from "../../core/collect/index.ts";
import {
  isBotUserAgent,
  judgeUserAgent,
  longestRememberedUserAgent,
  rememberedUserAgents,
  rememberedVerdictCount,
  removedCrawlerPatterns,
} from "./bot-filter.ts";

const crawlers = [
  "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
  "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
  "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
  "Mozilla/5.0 (compatible; SemrushBot/7~bl; +http://www.semrush.com/bot.html)",
  "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)",
  "Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)",
  "Mozilla/5.0 (compatible; CensysInspect/1.1; +https://about.censys.io/)",
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/124.0.0.0 Safari/537.36",
];

const people = [
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.4; rv:125.0) Gecko/20100101 Firefox/125.0",
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36",
];

describe("bot filter (DEC-COL-06, COL-13)", () => {
  it("recognises crawlers, through isbot or the vendor list", () => {
    for (const userAgent of crawlers) expect(isBotUserAgent(userAgent)).toBe(true);
    expect(isBotUserAgent("Keynote-Performance-Agent")).toBe(true);
  });

  it("lets browsers through", () => {
    for (const userAgent of people) expect(isBotUserAgent(userAgent)).toBe(false);
  });

  it("lets generic HTTP client libraries through: server-to-server collection is legitimate", () => {
    for (const userAgent of genericHttpClientUserAgents) expect(isBotUserAgent(userAgent)).toBe(false);
    for (const userAgent of [
      "curl/7.88.1",
      "python-requests/2.28.2",
      "Go-http-client/1.1",
      "okhttp/3.14.9",
      "Java/1.8.0_392",
      "axios/0.27.2",
      "undici",
      "node-fetch",
    ]) {
      expect(isBotUserAgent(userAgent)).toBe(false);
    }
  });

  it("a missing or empty User-Agent is not a bot", () => {
    expect(isBotUserAgent(null)).toBe(false);
    expect(isBotUserAgent(undefined)).toBe(false);
    expect(isBotUserAgent("")).toBe(false);
  });

  it("[COL-13, DEC-COL-06] crawlers that isbot recognises by their URL or a .com are bots", () => {
    const recognisedByBroadPatterns = [
      "Mozilla/5.0 (compatible; Yeti/1.1; +http://naver.me/spd)",
      "Dataprovider.com",
      "Mozilla/5.0 (compatible; Qwantify/2.4w; +https://www.qwant.com/)/2.4w",
      "heritrix/3.4.0 +https://www.kb.se/",
      "Screaming Frog SEO Spider/19.0",
      "ia_archiver",
    ];
    for (const userAgent of recognisedByBroadPatterns) {
      expect(isbot(userAgent)).toBe(true);
      expect(isBotUserAgent(userAgent)).toBe(true);
    }
  });

  it("[DEC-COL-06] removes from isbot's list only the patterns that name a client library, in isbot's own spelling, and the one of a lone product token", () => {
    const productToken = "^[\\w \\.\\-\\(?:\\):%]+(?:/v?\\d+(?:\\.\\d+)?(?:\\.\\d{1,10})*?)?(?:,|$)";
    expect([...removedCrawlerPatterns()].sort()).toEqual(
      [productToken, "\\bperl\\b", "^postman", "^python", "^rest", "^wget", "java(?!;)", "node\\b"].sort(),
    );
    for (const broad of ["(?<!lib)http", "\\.com\\b", "url"]) expect(removedCrawlerPatterns().has(broad)).toBe(false);
  });

  it("[DEC-COL-06] a User-Agent of one product token is a program sending server-to-server, not a bot, whatever its name", () => {
    for (const userAgent of [
      "checkout-service/2.3.1",
      "AcmeBackend/1.0",
      "orders-api",
      "Qwantify/1.0",
      "MyApp/2024.11.3",
    ]) {
      expect(isbot(userAgent)).toBe(true);
      expect(isBotUserAgent(userAgent)).toBe(false);
    }
    // Except a browser's token alone: a scraper passing for a browser.
    for (const userAgent of ["Mozilla/5.0", "mozilla", "Mozilla/4.0 "]) expect(judgeUserAgent(userAgent)).toBe(true);
  });

  it("[DEC-COL-06] a generic client's User-Agent that names a crawler is still a bot", () => {
    expect(isBotUserAgent("python-requests/2.31.0 (compatible; ExampleCrawler/1.0)")).toBe(true);
    expect(isBotUserAgent("okhttp/4.12.0 (linkcheck)")).toBe(true);
  });

  it("the vendor list is the specification's bot-tokens.txt, when the specification is beside the repository", () => {
    // The repository ships its own copy (core/collect/bot-tokens.ts) and never reads the spec folder at run time.
    const path = join(import.meta.dir, "..", "..", "..", "shared", "spec", "bot-tokens.txt");
    if (!existsSync(path)) return;
    const tokens = readFileSync(path, "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "" && !line.startsWith("#"));
    expect([...vendorBotTokens]).toEqual(tokens);
  });

  it("[DEC-COL-06] a remembered verdict is the verdict: any stream of User-Agents, longer than what is kept, gets the answers of a fresh judgement", () => {
    const known = [
      ...crawlers,
      ...people,
      ...genericHttpClientUserAgents,
      "python-requests/2.31.0 (compatible; ExampleCrawler/1.0)",
      "",
    ];
    const userAgent = fc.oneof(
      fc.constantFrom(...known),
      fc.string({ maxLength: 40 }),
      fc.tuple(fc.constantFrom(...known), fc.string({ maxLength: 12 })).map(([base, tail]) => `${base}${tail}`),
      fc.string({ minLength: longestRememberedUserAgent - 5, maxLength: longestRememberedUserAgent + 5 }),
    );
    fc.assert(
      fc.property(fc.array(userAgent, { maxLength: 200 }), fc.nat(rememberedUserAgents), (stream, filler) => {
        // Other User-Agents first, up to a full memory, so that the stream's own make the oldest go.
        for (let index = 0; index < filler; index += 1) isBotUserAgent(`Mozilla/5.0 filler ${index}`);
        for (const each of [...stream, ...stream]) expect(isBotUserAgent(each)).toBe(judgeUserAgent(each));
        expect(rememberedVerdictCount()).toBeLessThanOrEqual(rememberedUserAgents);
      }),
      { numRuns: 60 },
    );
  });
});
