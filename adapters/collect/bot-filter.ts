import { createIsBotFromList, findBotPatterns, list } from "isbot";
import { genericHttpClientUserAgents, matchesVendorBotToken } from "../../core/collect/bot.rules.ts";

/**
 * DEC-COL-06: isbot's patterns that recognise a generic HTTP client library (curl, python-requests,
 * Go-http-client, ...). Found by asking isbot which of its patterns match each client, as isbot's
 * documentation shows for `createIsBotFromList`, so the removal follows the library's list as it changes.
 */
export const removedCrawlerPatterns: ReadonlySet<string> = new Set(genericHttpClientUserAgents.flatMap((userAgent) => findBotPatterns(userAgent)));

const isCrawler = createIsBotFromList(list.filter((pattern) => !removedCrawlerPatterns.has(pattern)));

/**
 * DEC-COL-06, COL-13: a User-Agent with a token of the vendor's list, or one isbot (without the generic
 * client patterns) recognises as a crawler. A missing or empty User-Agent is not a bot.
 */
export function isBotUserAgent(userAgent: string | null | undefined): boolean {
  if (!userAgent) return false;
  return matchesVendorBotToken(userAgent) || isCrawler(userAgent);
}
