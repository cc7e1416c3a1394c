import type { Target, TargetArea } from "./target.ts";

export interface RequestOptions {
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  readonly headers?: Readonly<Record<string, string>>;
  /** A JSON body (sets Content-Type: application/json unless a header says otherwise). */
  readonly json?: unknown;
  /** Form fields, application/x-www-form-urlencoded. */
  readonly form?: Readonly<Record<string, string>>;
  /** A raw body, sent as it is. */
  readonly body?: string | Uint8Array;
}

/** An answer, read once: status, headers and the body as bytes and text. */
export interface HttpAnswer {
  /** The request it answers, `METHOD path`, so that a failure can say which request it was about. */
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

/**
 * Speaks HTTP to one area of a target (base, collect or moments). Black-box: nothing but requests.
 * Once `signal` is aborted (the runner abandoned the scenario, say after its time limit) the client sends
 * nothing more, so abandoned work cannot move the target's state (or its virtual clock) under the next scenario.
 */
export class HttpClient {
  constructor(
    private readonly target: Target,
    private readonly area: TargetArea,
    private readonly signal?: AbortSignal,
  ) {}

  url(path: string, query?: RequestOptions["query"]): string {
    const url = new URL(this.target.urls[this.area] + path);
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined) url.searchParams.append(key, String(value));
    }
    return url.toString();
  }

  async request(method: string, path: string, options: RequestOptions = {}): Promise<HttpAnswer> {
    const what = `${method} ${path}`;
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
    // A request already on its way is let finish (aborting it would reject promises nobody may await any more);
    // the scenario stops at its next request.
    const response = await this.target.send(new Request(this.url(path, options.query), { method, headers, body }));
    return readAnswer(response, what);
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
  return {
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
        throw new ScenarioFailure(`${what}: expected a JSON body, got ${JSON.stringify(text.slice(0, 200))}`);
      }
    },
  };
}

/** An expectation of a scenario that the target did not meet. */
export class ScenarioFailure extends Error {
  override readonly name = "ScenarioFailure";
}

/** A scenario that cannot run against this target (and says why). */
export class ScenarioSkip extends Error {
  override readonly name = "ScenarioSkip";
}

/** A request of a scenario the runner has abandoned: refused by the client, never sent. */
export class ScenarioAbandoned extends Error {
  override readonly name = "ScenarioAbandoned";
}

function abandonReason(signal: AbortSignal): string {
  return signal.reason instanceof Error ? signal.reason.message : String(signal.reason ?? "the scenario was abandoned");
}
