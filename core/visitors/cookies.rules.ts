import { parseCookie } from "cookie";
import { decodePercent } from "../values/percent-text.rules.ts";
import { tapidCookieName } from "./tapid.rules.ts";

/**
 * Reading the cookies of a Cookie header (TAPID and the tag library's utag_main for collection, JSESSIONID for
 * the session). The `cookie` package reads each `name=value` pair (the name and value split at the first `=`,
 * the white space around them removed, a pair without `=` skipped). Values are kept raw: each format decides how
 * it is decoded (a TAPID entry is percent-encoded on its own, so decoding the whole value first would break
 * entries that hold `|` or `>`).
 */

/** A Cookie header read once: each cookie name's raw values, in the header's order. */
export type RequestCookies = ReadonlyMap<string, readonly string[]>;

/** The value as sent, surrounding quotes removed (RFC 6265 allows a quoted cookie-value; cookie 1.x keeps them). */
function unquoted(value: string): string {
  return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
}

const keepRaw = { decode: unquoted };

/**
 * Every cookie of a Cookie header, read once. A browser sends several cookies of one name when they were set
 * for different domains or paths (an older deployment's `Domain=` cookie beside the host's own), and collection
 * reads every TAPID (docs/decisions.md): `parseCookie` keeps only a name's first value, so it is given the
 * header's `;`-separated pairs one at a time and every value is kept, in order.
 */
export function parseCookies(header: string | null | undefined): RequestCookies {
  const cookies = new Map<string, string[]>();
  if (!header) return cookies;
  for (const pair of header.split(";")) {
    const parsed = parseCookie(pair, keepRaw);
    for (const name in parsed) {
      const value = parsed[name] as string;
      const values = cookies.get(name);
      if (values === undefined) cookies.set(name, [value]);
      else values.push(value);
    }
  }
  return cookies;
}

/** The raw value of the first cookie called `name` (surrounding quotes removed), or null. */
export function readCookieValue(header: string | null | undefined, name: string): string | null {
  return header ? (parseCookie(header, keepRaw)[name] ?? null) : null;
}

/** The name of the tag library's first-party cookie. */
export const utagMainCookieName = "utag_main";

/**
 * DEC-COL-09: the first-party visitor ID, `v_id` inside a `utag_main` cookie such as
 * `v_id:0190...$_sn:3$_ss:0$ses_id:1700000000000%3Bexp-session`; null when there is none.
 */
export function firstPartyIdFromUtagMain(raw: string): string | null {
  for (const part of decodePercent(raw).split("$")) {
    if (!part.startsWith("v_id:")) continue;
    const value = part.slice("v_id:".length).split(";")[0] ?? "";
    return value === "" ? null : value;
  }
  return null;
}

/**
 * What collection reads of the Cookie header (DEC-COL-09, DEC-COL-10), from the header's one read: the raw
 * values of every TAPID cookie (the visitor-ID rules parse their entries) and the first-party visitor ID of the
 * first utag_main cookie, as sent (the visitor-ID rules decide whether it is usable).
 */
export interface CollectCookies {
  /** The raw value of every TAPID cookie, in the header's order. */
  readonly tapid: readonly string[];
  /** `v_id` of the first utag_main cookie (firstPartyIdFromUtagMain), or null when there is none. */
  readonly utagMainVisitorId: string | null;
  /**
   * Those cookies' pairs as sent, in order, joined as a Cookie header (what the collection journal keeps of a
   * stored event's request); null when there are none. The others are left out: they are other applications' (a
   * session, say).
   */
  readonly sent: string | null;
}

/**
 * DEC-COL-09, DEC-COL-10: the cookies collection reads, the header read once: each `;`-separated pair given to
 * the parser alone, as parseCookies does, so that every TAPID is read.
 */
export function readCollectCookies(header: string | null | undefined): CollectCookies {
  const tapid: string[] = [];
  const sent: string[] = [];
  let utagMain: string | undefined;
  for (const pair of header ? header.split(";") : []) {
    const parsed = parseCookie(pair, keepRaw);
    for (const name in parsed) {
      if (name !== tapidCookieName && name !== utagMainCookieName) continue;
      const value = parsed[name] as string;
      sent.push(pair.trim());
      if (name === tapidCookieName) tapid.push(value);
      else utagMain ??= value;
    }
  }
  return {
    tapid,
    utagMainVisitorId: utagMain === undefined ? null : firstPartyIdFromUtagMain(utagMain),
    sent: sent.length === 0 ? null : sent.join("; "),
  };
}
