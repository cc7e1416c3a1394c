/**
 * Issue 33, part 1: the client's calls are typed by the OpenAPI document. The @ts-expect-error lines are checked
 * by `tsc -p .` (npm run check): each fails the check the day the call it marks compiles.
 */
import { describe, expect, it } from "bun:test";
import { createSvcHubClient } from "./index.ts";

describe("the typed client's types", () => {
  it("refuse a body of the wrong shape, an unknown path and a missing path parameter at compile time", () => {
    const hub = createSvcHubClient({ baseUrl: "http://127.0.0.1:1", adminToken: "t" });
    const calls = () => {
      // @ts-expect-error PUT /admin/clock takes { now }, not { time }
      void hub.admin.PUT("/admin/clock", { body: { time: "2030-01-01T00:00:00Z" } });
      // @ts-expect-error /v1/login takes username and password
      void hub.api.POST("/v1/login", { body: { user: "demo@example.com" } });
      // @ts-expect-error no such path in the interface
      void hub.api.GET("/v1/no-such-path");
      void hub.api.GET("/v1/dle/accounts/{account}/profiles/{profile}/datalayers/{dl_id}", {
        // @ts-expect-error dl_id is a required path parameter
        params: { path: { account: "acme", profile: "main" } },
      });
    };
    expect(typeof calls).toBe("function");
  });

  it("take fault injection and the request journal at the paths the server and the docs name (issue 43, point 4)", () => {
    const hub = createSvcHubClient({ baseUrl: "http://127.0.0.1:1", adminToken: "t" });
    const calls = () => {
      void hub.admin.POST("/admin/faults", { body: { path: "/event", status: 503, times: 2 } });
      void hub.admin.GET("/admin/faults");
      void hub.admin.DELETE("/admin/faults");
      void hub.admin.DELETE("/admin/faults/{id}", { params: { path: { id: "f1" } } });
      void hub.admin.GET("/admin/requests", { params: { query: { path: "/event", status: "503" } } });
      void hub.admin.DELETE("/admin/requests");
      // @ts-expect-error the document names no path with a trailing /
      void hub.admin.GET("/admin/faults/");
    };
    expect(typeof calls).toBe("function");
  });
});
