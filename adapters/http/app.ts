import { type AnyElysia, Elysia } from "elysia";
import { adminRoutes } from "./admin.routes.ts";
import { adminEventWaitRoutes } from "./admin-event-wait.routes.ts";
import { adminFaultRoutes } from "./admin-faults.routes.ts";
import { adminFileRoutes } from "./admin-files.routes.ts";
import { assertAdmin, holdsAdminToken } from "./admin-guard.ts";
import { adminInspectRoutes } from "./admin-inspect.routes.ts";
import { adminOverviewRoutes } from "./admin-overview.routes.ts";
import { adminRequestRoutes } from "./admin-requests.routes.ts";
import { adminRevisionRoutes } from "./admin-revisions.routes.ts";
import { adminUsersRoutes } from "./admin-users.routes.ts";
import { answerHeadersOf } from "./answer-headers.ts";
import type { AppDeps } from "./app-deps.ts";
import { collectRoutes } from "./collect.routes.ts";
import { consoleRoutes } from "./console.routes.ts";
import { dataLayerRoutes } from "./datalayer.routes.ts";
import { dleServingRoutes } from "./dle-serving.routes.ts";
import {
  type AllowedMethodsOf,
  InvalidHostError,
  mapUnhandledError,
  rawPathOf,
  routeMethodsOf,
  unavailableResponse,
} from "./error-mapping.ts";
import { withFaultsAndJournal } from "./faults-and-journal.ts";
import { fileStatusV1Routes, fileStatusV2Routes } from "./files.routes.ts";
import { healthRoutes } from "./health.routes.ts";
import { metricsRoutes } from "./metrics.routes.ts";
import { momentsRoutes } from "./moments.routes.ts";
import { withoutAdminApi } from "./openapi-visibility.ts";
import { privacyRoutes } from "./privacy.routes.ts";
import { revisionRoutes } from "./revisions.routes.ts";
import { notedRouteOf, noteRouteTemplate, type RouteFinder, routeFinderOf } from "./route-template.ts";
import { sessionRoutes } from "./session.routes.ts";

/**
 * Builds the whole HTTP app without listening (tests call `app.handle(request)`; main.ts listens).
 * One process serves every API (DEC-OPS-01).
 */
export function createApp(deps: AppDeps) {
  // standardHostname: false makes Elysia look for the path after "http://" rather than 11 characters in,
  // which assumed a host of at least four characters: `Host: x` had it route /aaa/admin/users as
  // /admin/users. The server and the in-process harness only make http: URLs.
  // The route table, read once the routes are all there (at the first 404 that needs it).
  const answerHeaders = answerHeadersOf(deps.version, deps.nodeId);
  let built: AnyElysia | null = null;
  let allowedMethodsOf: AllowedMethodsOf | null = null;
  const allowedMethods = (pathname: string): readonly string[] => {
    if (!built) return [];
    allowedMethodsOf ??= routeMethodsOf(built.routes);
    return allowedMethodsOf(pathname);
  };
  const app = new Elysia({ name: "svc-hub", handler: { standardHostname: false } })
    .onRequest(({ request, set }) => {
      Object.assign(set.headers, answerHeaders);
      // Bun gives a bare path as the URL when the Host header is not a valid host (`a/b`, empty), and a URL
      // that does not parse for others (`a:b`): the router and the admin check below could then read
      // different paths, and every later `new URL` throws. Refused before anything else.
      if (!/^https?:\/\//.test(request.url) || !URL.canParse(request.url)) throw new InvalidHostError();
      // DEC-OPS-01: the whole admin API needs the admin token, checked before anything of the request is
      // read, so that a caller without it learns nothing about admin requests (not even their shape). So do
      // the metrics (GET /metrics), which tell how much traffic each tenant's site sends.
      if (needsAdminToken(request.url)) assertAdmin(request.headers.get("authorization") ?? undefined, deps.adminToken);
    })
    // The route each request matched, for the metrics' route label (adapters/http/request-log.ts).
    .onTransform({ as: "global" }, ({ request, route }) => noteRouteTemplate(request, route))
    .onError(mapUnhandledError(deps.logger, allowedMethods))
    .use(openApiDocumentRoute(() => built, deps.version))
    .use(healthRoutes(deps))
    .use(metricsRoutes(deps))
    .use(adminRoutes(deps))
    .use(collectRoutes(deps))
    .use(adminInspectRoutes(deps))
    .use(adminUsersRoutes(deps))
    .use(adminRevisionRoutes(deps))
    .use(adminOverviewRoutes(deps))
    .use(adminEventWaitRoutes(deps))
    .use(adminFaultRoutes(deps.testingTools))
    .use(adminRequestRoutes(deps.testingTools, () => built?.routes ?? []))
    .use(revisionRoutes(deps))
    .use(adminFileRoutes(deps))
    .use(fileStatusV1Routes(deps))
    .use(fileStatusV2Routes(deps))
    .use(sessionRoutes(deps))
    .use(privacyRoutes(deps))
    .use(dataLayerRoutes(deps))
    .use(dleServingRoutes(deps))
    .use(momentsRoutes(deps))
    .use(consoleRoutes());
  built = app;
  // svc-hub's own admin API: a reset (POST /admin/reset) runs while no other request does. Every request goes
  // through the gate (adapters/runtime/request-gate.ts), but the reset itself, and /admin/wait, whose passes
  // a reset holds anyway (Scheduler.hold), so a wait in flight neither delays a reset nor sees half of one.
  const handle = app.handle;
  // The admin API's shape is for the admin token's holder, as the admin API itself (DEC-OPS-01): another caller
  // of the OpenAPI document gets it without the admin paths.
  const answer = (request: Request) =>
    asksForTheDocument(request) && !holdsAdminToken(request.headers.get("authorization") ?? undefined, deps.adminToken)
      ? handle(request).then((answered) => withoutAdminApi(request.method, answered))
      : handle(request);
  const gated = (request: Request) =>
    deps.requests.pass(
      () => answer(request),
      () => unavailableResponse(request, answerHeaders),
    );
  // The route a request matched, for the request journal: the one the router chose, or for a request it never
  // saw (a fault answered it, a reset held it), the one it would have chosen.
  let findRoute: RouteFinder | null = null;
  const routeOf = (request: Request) => {
    const noted = notedRouteOf(request);
    if (noted !== undefined) return noted;
    findRoute ??= routeFinderOf(app.routes);
    return findRoute(request.method, rawPathOf(request.url));
  };
  // Issue 33: faults answer (or delay) the interface routes' requests before the gate, and the journal records them.
  const served = withFaultsAndJournal(gated, deps.testingTools, answerHeaders, routeOf);
  app.handle = (request) => (bypassesTheGate(request) ? handle(request) : served(request));
  return app;
}

/** What the OpenAPI document says beside the routes: its title, and how each kind of caller authenticates. */
function documentationOf(version: string) {
  return {
    info: {
      title: "svc-hub",
      description:
        "Visitor data, collection and configuration service: management APIs (v1, v2), collection, visitor data and the admin API.",
      version,
    },
    components: {
      securitySchemes: {
        admin: { type: "http", scheme: "bearer", description: "SVC_ADMIN_TOKEN" },
        session: {
          type: "apiKey",
          in: "cookie",
          name: "JSESSIONID",
          description: "The session cookie from POST /v1/login (with its utk)",
        },
        utk: {
          type: "apiKey",
          in: "query",
          name: "utk",
          description: "The utk POST /v1/login answered (with its session cookie)",
        },
        bearer: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "JWT",
          description: "A token from POST /v2/auth",
        },
      },
    },
  } as const;
}

/**
 * GET /openapi.json: the document made from the routes' schemas by @elysiajs/openapi's generator (as its plugin
 * does), loaded and run at the first request for it and kept after: a start never pays for it.
 */
function openApiDocumentRoute(routesOf: () => AnyElysia | null, version: string) {
  const documentation = documentationOf(version);
  let made: Promise<Record<string, unknown>> | null = null;
  const make = async () => {
    const app = routesOf();
    if (!app) throw new Error("the OpenAPI document was asked for before the routes were all there");
    const { toOpenAPISchema } = await import("@elysiajs/openapi/openapi");
    const { paths, components } = toOpenAPISchema(app);
    return {
      ...documentation,
      openapi: "3.1.2",
      info: documentation.info,
      paths,
      components: { ...documentation.components, schemas: components.schemas },
    };
  };
  return new Elysia({ name: "openapi-document" }).get(
    "/openapi.json",
    () => {
      made ??= make().catch((error: unknown) => {
        made = null;
        throw error;
      });
      return made;
    },
    { detail: { hide: true } },
  );
}

/** GET or HEAD /openapi.json (one trailing "/" forgiven). */
function asksForTheDocument(request: Request): boolean {
  // The hot path (/event, moments lookups) leaves at the first look.
  return request.url.includes("/openapi.json") && /^\/openapi\.json\/?$/.test(rawPathOf(request.url));
}

/** The requests that do not wait at the gate: POST /admin/reset, /admin/wait and /admin/events/wait (one trailing "/" forgiven, as the router forgives it). */
function bypassesTheGate(request: Request): boolean {
  // Most requests leave at the first look: the hot path (/event, moments lookups) parses nothing here.
  if (request.method !== "POST" || !request.url.includes("/admin/")) return false;
  const path = rawPathOf(request.url).replace(/(.)\/$/, "$1");
  // A wait for events (issue 43) holds its request for up to its timeout: a reset must not wait for it.
  return path === "/admin/reset" || path === "/admin/wait" || path === "/admin/events/wait";
}

/** `/admin` or anything under it, and `/metrics`, read from the URL's text as Elysia routes it (rawPathOf). */
function needsAdminToken(url: string): boolean {
  const path = rawPathOf(url);
  return path === "/admin" || path.startsWith("/admin/") || path === "/metrics" || path === "/metrics/";
}

export type App = ReturnType<typeof createApp>;
