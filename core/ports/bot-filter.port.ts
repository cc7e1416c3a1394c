/**
 * DEC-COL-06, COL-13: whether a User-Agent is a crawler's, whose events are answered as a success and not
 * stored. The verdict rests on a maintained list of crawler patterns (isbot in the adapters) beside the
 * vendor's own tokens (core/collect/bot.rules.ts); a missing or empty User-Agent is not a bot.
 */
export interface BotFilter {
  isBot(userAgent: string | null): boolean;
}
