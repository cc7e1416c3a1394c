/**
 * The API reference page: svc-hub's /openapi.json rendered by Scalar's standalone bundle, served by svc-hub
 * itself. With the console's token the document includes the admin API. Scalar is told to load no fonts and
 * to use no proxy, so that the page asks nothing of any other host.
 */
import { authHeaders, readToken } from "./api.ts";

/**
 * Scalar's light theme with its muted text and its method colours darkened to a contrast of at least 4.5:1
 * on its backgrounds (WCAG 2.1 AA), which its own colours miss.
 */
const contrastCss = `.light-mode {
  --scalar-color-3: #57606a;
  --scalar-color-green: #116329;
  --scalar-color-blue: #0a4f96;
  --scalar-color-orange: #8a4600;
  --scalar-color-yellow: #6f5400;
  --scalar-color-red: #a40e26;
  --scalar-color-purple: #6639ba;
}`;

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
      customCss: contrastCss,
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
