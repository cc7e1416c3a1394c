/**
 * The API reference page: svc-hub's /openapi.json rendered by Scalar's standalone bundle, served by svc-hub
 * itself. With the console's token the document includes the admin API. Scalar is told to load no fonts and
 * to use no proxy, so that the page asks nothing of any other host.
 */
import { authHeaders, readToken } from "./api.ts";

declare const Scalar: { createApiReference(target: string | Element, configuration: Record<string, unknown>): unknown };

async function show(): Promise<void> {
  const status = document.getElementById("api-reference-status");
  try {
    const response = await fetch("/openapi.json", { headers: authHeaders(), credentials: "omit" });
    if (!response.ok) throw new Error(`GET /openapi.json answered ${response.status}`);
    const content = await response.json();
    if (typeof Scalar === "undefined")
      throw new Error("The API reference renderer is not installed with this svc-hub.");
    Scalar.createApiReference("#reference", {
      content,
      withDefaultFonts: false,
      showDeveloperTools: "never",
      telemetry: false,
      agent: { disabled: true },
      mcp: { disabled: true },
    });
    if (status) status.textContent = readToken() ? "" : "Signed out of the console: the admin API is not listed.";
  } catch (error) {
    if (status) status.textContent = error instanceof Error ? error.message : String(error);
  }
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", show);
else show();
