import type { Target, TargetArea } from "./target.ts";

export interface RequestOptions {
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  readonly headers?: Readonly<Record<string, string>>;
  /** A JSON body (sets Content-Type: application/json unless a header says otherwise). */
  readonly json?: unknown;
  /** Form fields, application/x-www-form-urlencoded. */
  readonly form?: Readonly<Record<string, string>>;
  /** A raw body, sent as it is; a FormData as multipart/form-data, its Content-Type (and boundary) set by Request. */
  readonly body?: string | Uint8Array | FormData;
}

/** An answer, read once: status, headers and the body as bytes and text. */
export interface HttpAnswer {
  /**
   * The request it answers, `METHOD path?query` (secrets such as the utk redacted), so that a failure can say
   * which request, with which values, it was about.
   */
  readonly request: string;
  readonly status: number;
  readonly headers: Headers;
  readonly bytes: Uint8Array;
  readonly text: string;
  /** The body as JSON; throws a clear error when it is not JSON. */
  json<T = unknown>(): T;
  /** Every Set-Cookie header, one entry each. */
  readonly setCookies: string[];
}

/** The request as a failure message names it: `METHOD path?query`, and the full URL when asked; secrets redacted. */
interface SentRequest {
  readonly what: string;
  readonly url: string;
}

/**
 * The requests of one scenario, shared by its clients: which are on their way and the last one answered, so
 * that an error or a time limit can say which request was in flight and what the target last answered.
 */
export class RequestTrail {
  private readonly inFlight = new Set<SentRequest>();
  private last: { readonly request: SentRequest; readonly answer: HttpAnswer } | null = null;

  sent(request: SentRequest): void {
    this.inFlight.add(request);
  }

  settled(request: SentRequest, answer: HttpAnswer | null): void {
    this.inFlight.delete(request);
    if (answer) this.last = { request, answer };
  }

  /** The last answer received, or null before the first. */
  lastAnswer(): HttpAnswer | null {
    return this.last?.answer ?? null;
  }

  /** One or two lines: the requests in flight, and the last answer with its status and the start of its body. */
  describe(): string | null {
    const lines: string[] = [];
    const pending = [...this.inFlight];
    if (pending.length > 0) {
      const shown = pending
        .slice(0, 3)
        .map((request) => `${request.what} (${request.url})`)
        .join(", ");
      lines.push(`in flight: ${shown}${pending.length > 3 ? ` and ${pending.length - 3} more` : ""}`);
    }
    if (this.last)
      lines.push(
        `last answer: ${this.last.request.what} (${this.last.request.url}) answered ${describeAnswer(this.last.answer)}`,
      );
    return lines.length > 0 ? lines.join("\n") : null;
  }
}

/** Query parameters whose values are secrets: never written into a message or a report. */
const secretParameters = ["utk", "key", "apikey", "api_key", "token", "access_token", "password"];
/** A secret's value in a URL: up to the next parameter or the end of the URL (a value in a URL has its `:` encoded). */
const secretInText = new RegExp(`([?&](?:${secretParameters.join("|")})=)(?!\\[redacted\\])[^&#\\s)"':,;]*`, "gi");

/** A utk or token in a JSON body as a message quotes it (`"utk":"…"`, also with the quotes escaped). */
const secretInJson = /(\\?"(?:utk|token)\\?"\s*:\s*\\?")(?!\[redacted\])[^"\\]*/gi;

/** The v1 session cookie's value, as a message quotes a `Set-Cookie` or `Cookie` header (up to its `;`). */
const sessionCookie = /(\bJSESSIONID=)(?!\[redacted\])[^;\s"',\\]*/gi;

/**
 * A bearer token, as a message quotes an `Authorization` header: `Bearer` and a token of 8 characters or
 * more on the same line. Not prose ("a bearer token"), and not the parameters of a `WWW-Authenticate`
 * challenge (`Bearer realm="…"`), whose `=` is followed by a value (a token's `=` only pads its end).
 */
const bearerToken = /(\bBearer[ \t]+)(?!\[redacted\])(?![\w-]+=[^=\s])[A-Za-z0-9._~+/-]{8,}=*/g;

/**
 * A URL, or any text holding URLs or quoting answers, with the values of secret query parameters (the v1
 * session's utk, keys, tokens, passwords), the utk or token of a JSON body, the session cookie's value and a
 * bearer token replaced by `[redacted]`, for failure messages and the reports.
 */
export function redactSecrets(text: string): string {
  return text
    .replace(secretInText, "$1[redacted]")
    .replace(secretInJson, "$1[redacted]")
    .replace(sessionCookie, "$1[redacted]")
    .replace(bearerToken, "$1[redacted]");
}

/**
 * `200 application/json {"a":1}`: the status, the content type, the X-Error and Retry-After headers when
 * present (the collection endpoint's refusals say why in X-Error), and the start of the body; a body that is
 * not text (the pixel GIF, a zip) is described by its size, never dumped.
 */
export function describeAnswer(answer: Pick<HttpAnswer, "status" | "headers" | "text" | "bytes">, max = 300): string {
  const type = answer.headers.get("content-type") ?? "";
  const body =
    answer.bytes.byteLength === 0
      ? "(empty body)"
      : isTextual(type)
        ? JSON.stringify(answer.text.length > max ? `${answer.text.slice(0, max)}…` : answer.text)
        : `(${answer.bytes.byteLength} bytes)`;
  const told = ["X-Error", "Retry-After"]
    .map((name) => [name, answer.headers.get(name)] as const)
    .filter((entry): entry is readonly [string, string] => entry[1] !== null)
    .map(([name, value]) => ` ${name}: ${JSON.stringify(value)}`)
    .join("");
  return `${answer.status}${type ? ` ${type}` : ""}${told} ${body}`;
}

/** Whether a body of this Content-Type reads as text (no type at all is taken as text: the body shows what it is). */
function isTextual(contentType: string): boolean {
  return contentType === "" || /json|text|javascript|xml|html|x-www-form-urlencoded/i.test(contentType);
}

/**
 * Speaks HTTP to one area of a target (base, collect or moments). Black-box: nothing but requests.
 * Once `signal` is aborted (the runner abandoned the scenario, say after its time limit) the client sends
 * nothing more, so abandoned work cannot move the target's state (or its virtual clock) under the next scenario.
 * Every request and answer goes into `trail`, which the runner reads to say what was in flight when a
 * scenario broke. With `boundMs`, a request not answered within that many milliseconds is given up (a
 * cleanup's requests, which must not hold up the run).
 */
export class HttpClient {
  constructor(
    private readonly target: Target,
    private readonly area: TargetArea,
    private readonly signal?: AbortSignal,
    private readonly trail: RequestTrail = new RequestTrail(),
    private readonly boundMs?: number,
  ) {}

  url(path: string, query?: RequestOptions["query"]): string {
    const url = new URL(this.target.urls[this.area] + path);
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined) url.searchParams.append(key, String(value));
    }
    return url.toString();
  }

  async request(method: string, path: string, options: RequestOptions = {}): Promise<HttpAnswer> {
    const url = this.url(path, options.query);
    // The query string names the values sent (which datasource, which visitor), so a failure says which one failed.
    const what = redactSecrets(`${method} ${path.split("?")[0]}${new URL(url).search}`);
    if (this.signal?.aborted) throw new ScenarioAbandoned(`${what} not sent: ${abandonReason(this.signal)}`);
    const headers = new Headers(options.headers);
    let body: BodyInit | undefined;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      if (!headers.has("content-type")) headers.set("content-type", "application/json");
    } else if (options.form !== undefined) {
      body = new URLSearchParams(options.form as Record<string, string>).toString();
      if (!headers.has("content-type")) headers.set("content-type", "application/x-www-form-urlencoded");
    } else if (options.body !== undefined) {
      body = options.body as BodyInit;
    }
    const sent: SentRequest = { what, url: redactSecrets(url) };
    this.trail.sent(sent);
    let answer: HttpAnswer | null = null;
    try {
      // A request already on its way is let finish (aborting it would reject promises nobody may await any more);
      // the scenario stops at its next request.
      answer = await this.within(
        this.target.send(new Request(url, { method, headers, body })).then((response) => readAnswer(response, what)),
      );
      return answer;
    } catch (error) {
      throw new TargetDidNotAnswer(
        `${what} (${sent.url}) did not answer: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    } finally {
      this.trail.settled(sent, answer);
    }
  }

  /** The answer, or a rejection once `boundMs` has passed without one (the late answer is then dropped). */
  private within(answer: Promise<HttpAnswer>): Promise<HttpAnswer> {
    const bound = this.boundMs;
    if (bound === undefined) return answer;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${bound} ms`)), bound);
    });
    answer.catch(() => undefined);
    return Promise.race([answer, late]).finally(() => clearTimeout(timer));
  }

  get(path: string, options?: RequestOptions): Promise<HttpAnswer> {
    return this.request("GET", path, options);
  }

  post(path: string, options?: RequestOptions): Promise<HttpAnswer> {
    return this.request("POST", path, options);
  }

  put(path: string, options?: RequestOptions): Promise<HttpAnswer> {
    return this.request("PUT", path, options);
  }

  delete(path: string, options?: RequestOptions): Promise<HttpAnswer> {
    return this.request("DELETE", path, options);
  }
}

async function readAnswer(response: Response, what: string): Promise<HttpAnswer> {
  const bytes = new Uint8Array(await response.arrayBuffer());
  const text = new TextDecoder().decode(bytes);
  const answer: HttpAnswer = {
    request: what,
    status: response.status,
    headers: response.headers,
    bytes,
    text,
    setCookies: response.headers.getSetCookie(),
    json<T>() {
      try {
        return JSON.parse(text) as T;
      } catch {
        throw new ScenarioFailure(`${what}: expected a JSON body, got ${describeAnswer(answer, 200)}`);
      }
    },
  };
  return answer;
}

/** An expectation of a scenario that the target did not meet. */
export class ScenarioFailure extends Error {
  override readonly name = "ScenarioFailure";
}

/** A scenario that cannot run against this target (and says why). */
export class ScenarioSkip extends Error {
  override readonly name = "ScenarioSkip";
}

/** A request the target did not answer (refused connection, reset, DNS): an error of the run, not a verdict. */
export class TargetDidNotAnswer extends Error {
  override readonly name = "TargetDidNotAnswer";
}

/** A request of a scenario the runner has abandoned: refused by the client, never sent. */
export class ScenarioAbandoned extends Error {
  override readonly name = "ScenarioAbandoned";
}

function abandonReason(signal: AbortSignal): string {
  return signal.reason instanceof Error ? signal.reason.message : String(signal.reason ?? "the scenario was abandoned");
}
