import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { genericHttpClientUserAgents, matchesVendorBotToken } from "./bot.rules.ts";
import { vendorBotTokens } from "./bot-tokens.ts";

describe("vendor bot tokens (DEC-COL-06, COL-13)", () => {
  it("match as case-insensitive substrings", () => {
    assert.equal(
      matchesVendorBotToken("Mozilla/5.0 (compatible; GOOGLEBOT/2.1; +http://www.google.com/bot.html)"),
      true,
    );
    assert.equal(matchesVendorBotToken("Pingdom.com_bot_version_1.4_(http://www.pingdom.com/)"), true);
    assert.equal(matchesVendorBotToken("something with black.hole inside"), true);
    assert.equal(
      matchesVendorBotToken("Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0"),
      false,
    );
  });

  it("a period in a token is literal, not any character", () => {
    assert.equal(matchesVendorBotToken("BlackXHole"), false);
  });

  it("every token of the list matches itself, in any case", () => {
    for (const token of vendorBotTokens) {
      assert.equal(matchesVendorBotToken(`x ${token.toUpperCase()} y`), true, token);
      assert.equal(matchesVendorBotToken(token.toLowerCase()), true, token);
    }
  });

  it("no generic HTTP client matches a vendor token (server-to-server collection is legitimate)", () => {
    for (const userAgent of genericHttpClientUserAgents)
      assert.equal(matchesVendorBotToken(userAgent), false, userAgent);
  });
});
