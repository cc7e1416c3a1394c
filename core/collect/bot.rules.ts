import { vendorBotTokens } from "./bot-tokens.ts";

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** One case-insensitive alternation of every vendor token, built once. */
const vendorTokenPattern = new RegExp(vendorBotTokens.map(escapeRegExp).join("|"), "i");

/** DEC-COL-06, COL-13: the User-Agent contains (case-insensitively) a token of the vendor's bot list. */
export function matchesVendorBotToken(userAgent: string): boolean {
  return vendorTokenPattern.test(userAgent);
}

/**
 * DEC-COL-06: User-Agents of generic HTTP client libraries and tools. Server-to-server collection is
 * legitimate, so none of them is a bot here; the adapter removes from the crawler-pattern library every
 * pattern that recognises one of these, and a test proves that none of them is filtered.
 */
export const genericHttpClientUserAgents: readonly string[] = [
  "curl/8.5.0",
  "Wget/1.21.4",
  "node",
  "Node.js/20",
  "undici",
  "axios/1.6.7",
  "node-fetch/1.0 (+https://github.com/bitinn/node-fetch)",
  "node-fetch",
  "python-requests/2.31.0",
  "Python-urllib/3.12",
  "python-httpx/0.27.0",
  "Python/3.12 aiohttp/3.9.3",
  "Java/17.0.10",
  "Java-http-client/21.0.2",
  "Apache-HttpClient/4.5.14 (Java/17.0.10)",
  "okhttp/4.12.0",
  "Go-http-client/1.1",
  "Go-http-client/2.0",
  "libwww-perl/6.72",
  "GuzzleHttp/7",
  "Ruby",
  "Faraday v2.9.0",
  "rest-client/2.1.0 (linux x86_64) ruby/3.3.0p0",
  "RestSharp/110.2.0.0",
  "reqwest/0.12",
  "HTTPie/3.2.2",
  "PostmanRuntime/7.37.0",
  "Bun/1.1.0",
  "Deno/1.42.0",
  "python-urllib3/2.0.7",
  "Apache-HttpAsyncClient/4.1.4 (Java/11.0.2)",
  "Google-HTTP-Java-Client/1.43.3 (gzip)",
  "Jersey/2.35 (HttpUrlConnection 1.8.0_292)",
  "Unirest-Java/3.11.09",
  "ReactorNetty/1.1.13",
  "node-superagent/3.8.3",
  "got (https://github.com/sindresorhus/got)",
  "ky",
  "Symfony HttpClient (Native)",
  "http.rb/5.1.1",
  "Typhoeus - https://github.com/typhoeus/typhoeus",
  "hackney/1.18.1",
  "fasthttp",
  "Dart/3.3 (dart:io)",
  "Cloudflare-Workers",
  "Jakarta Commons-HttpClient/3.1",
  "HTTPClient/1.0 (2.8.3, ruby 3.0.0 (2020-12-25))",
  "PycURL/7.45.2 libcurl/7.88.1 OpenSSL/3.0.11",
  "go-resty/2.12.0 (https://github.com/go-resty/resty)",
  "AHC/2.1",
  "Ktor client",
  "Vert.x-WebClient/4.4.0",
];
