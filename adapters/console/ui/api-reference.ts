/**
 * The API reference page: svc-hub's /openapi.json rendered by RapiDoc (its `<rapi-doc>` element), served by
 * svc-hub itself. With the console's token the document includes the admin API. RapiDoc is told to load no fonts
 * and to offer no "try it", no server choice and no loading of another document, so that the page asks nothing of
 * any other host and sends no request but its own two.
 */
import { authHeaders, readToken } from "./api.ts";

/**
 * RapiDoc's settings. Its colours are replaced by ones with a contrast of at least 4.5:1 on their backgrounds
 * (WCAG 2.1 AA), which its orange and its grey navigation miss. "focused" shows one operation at a time, chosen
 * in the navigation, which is what keeps the first render short.
 */
const settings: Record<string, string> = {
  "render-style": "focused",
  "show-header": "false",
  "load-fonts": "false",
  "allow-try": "false",
  "allow-server-selection": "false",
  "allow-authentication": "false",
  "allow-spec-url-load": "false",
  "allow-spec-file-load": "false",
  "show-components": "false",
  theme: "light",
  "bg-color": "#ffffff",
  "text-color": "#1f2328",
  "primary-color": "#0a4f96",
  "nav-bg-color": "#f6f8fa",
  "nav-text-color": "#1f2328",
  "nav-hover-bg-color": "#e6ebf1",
  "nav-hover-text-color": "#0a4f96",
  "nav-accent-color": "#0a4f96",
  "nav-accent-text-color": "#ffffff",
};

/** The page around RapiDoc: a header line, and the reference filling the rest of the window. */
const pageCss = `body { margin: 0; display: flex; flex-direction: column; height: 100vh; font-family: system-ui, sans-serif; color: #1f2328; }
header { display: flex; flex-wrap: wrap; align-items: baseline; gap: 0 1rem; padding: 0.5rem 1rem; border-bottom: 1px solid #d0d7de; }
header h1 { font-size: 1.1rem; margin: 0; }
header a { color: #0a4f96; }
header p { margin: 0; }
#reference { flex: 1; min-height: 0; }
rapi-doc { display: block; height: 100%; }`;

interface RapiDocElement extends HTMLElement {
  loadSpec(document: unknown): Promise<void>;
  readonly updateComplete: Promise<boolean>;
}

/**
 * The document as RapiDoc is given it: svc-hub's own, labelled OpenAPI 3.0. RapiDoc's parser takes a 3.1 document
 * through ApiDOM (every node turned into an element, normalised and dereferenced), which is most of the page's
 * time (about 1 s of main thread for svc-hub's 150 KB document); a 3.0 one through swagger-client's lighter
 * resolver. svc-hub's document has no `$ref` to resolve, and both give RapiDoc the same operations, schemas and
 * groups (e2e/console.e2e.ts compares them), so the label changes only the time. /openapi.json itself says 3.1.
 */
function asRendered(content: { openapi?: unknown }): unknown {
  return { ...content, openapi: "3.0.3" };
}

/** RapiDoc's script is a deferred one, run after this module: its element is defined once it has run. */
async function rendererDefined(): Promise<void> {
  if (customElements.get("rapi-doc") !== undefined) return;
  const loaded = new Promise<void>((resolve) => {
    if (document.readyState === "complete") resolve();
    else window.addEventListener("load", () => resolve(), { once: true });
  });
  await Promise.race([customElements.whenDefined("rapi-doc"), loaded]);
  if (customElements.get("rapi-doc") === undefined)
    throw new Error("The API reference renderer is not installed with this svc-hub.");
}

/**
 * RapiDoc's navigation is a <nav> inside another, neither named: named here (once drawn), so that each landmark
 * is told apart (WCAG 2.1, 1.3.1).
 */
async function nameNavigation(reference: RapiDocElement): Promise<void> {
  await reference.updateComplete;
  const [outer, inner] = reference.shadowRoot?.querySelectorAll("nav") ?? [];
  outer?.setAttribute("aria-label", "API reference");
  inner?.setAttribute("aria-label", "Operations");
}

async function show(): Promise<void> {
  const style = document.createElement("style");
  style.textContent = pageCss;
  document.head.append(style);
  const status = document.getElementById("api-reference-status");
  const say = (text: string) => {
    if (!status) return;
    status.textContent = text;
    status.hidden = text === "";
  };
  try {
    // Asked for at once, while RapiDoc's script still loads and runs.
    const asked = fetch("/openapi.json", { headers: authHeaders(), credentials: "omit" });
    asked.catch(() => undefined); // read below, unless the renderer is missing
    await rendererDefined();
    const response = await asked;
    if (!response.ok) throw new Error(`GET /openapi.json answered ${response.status}`);
    const content = await response.json();
    const reference = document.createElement("rapi-doc") as RapiDocElement;
    for (const [name, value] of Object.entries(settings)) reference.setAttribute(name, value);
    document.getElementById("reference")?.append(reference);
    say(readToken() ? "" : "Signed out of the console: the admin API is not listed.");
    await reference.loadSpec(asRendered(content));
    await nameNavigation(reference);
  } catch (error) {
    say(error instanceof Error ? error.message : String(error));
  }
}

show();
