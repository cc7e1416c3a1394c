/** The console's page: sign-in, then the pages under /console, each reading the admin API with the tab's token. */
import { render } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { call, forgetToken, keepToken, readToken, whenUnauthorised } from "./api.ts";
import { ErrorNote, Link } from "./components.tsx";
import { DataPage } from "./pages/data.tsx";
import { EventPage } from "./pages/event.tsx";
import { EventsPage } from "./pages/events.tsx";
import type { Picked } from "./pages/tenant-picker.tsx";
import { TimePage } from "./pages/time.tsx";
import { VisitorsPage } from "./pages/visitors.tsx";
import { base, navigate, type Place, usePlace } from "./router.ts";
import type { EventPage as StoredEventsPage, Tenant } from "./types.ts";

const sections = [
  { path: "/events", title: "Events" },
  { path: "/visitors", title: "Visitors" },
  { path: "/data", title: "Data layers, revisions, imports, privacy" },
  { path: "/time", title: "Time and state" },
] as const;

function SignIn(props: { onSignedIn: () => void; expired: boolean }) {
  const [token, setToken] = useState("");
  const [remember, setRemember] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await call("/admin/clock", { token });
      keepToken(token, remember);
      props.onSignedIn();
    } catch (problem) {
      setError(
        problem instanceof Error && "status" in problem && problem.status === 401
          ? new Error("That is not the admin token (SVC_ADMIN_TOKEN, or the one the server printed at start).")
          : problem,
      );
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="sign-in">
      <h1>svc-hub console</h1>
      {props.expired ? <p role="status">The admin token was refused: sign in again.</p> : null}
      <form onSubmit={submit}>
        <label for="token">Admin token</label>
        <input
          id="token"
          name="token"
          type="password"
          autoComplete="off"
          required
          value={token}
          onInput={(event) => setToken(event.currentTarget.value)}
        />
        <p class="hint" id="token-hint">
          Kept in this tab only, unless remembered below, and sent as a header with each call to the admin API.
        </p>
        <label class="inline">
          <input
            type="checkbox"
            name="remember"
            checked={remember}
            onChange={(event) => setRemember(event.currentTarget.checked)}
          />
          Remember the token in this browser (every tab, until you sign out)
        </label>
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
      <ErrorNote error={error} />
    </main>
  );
}

function Page(props: { place: Place; tenants: readonly Tenant[]; latest: Picked | null }) {
  const { path, query } = props.place;
  const seq = /^\/events\/(\d+)$/.exec(path);
  if (seq) return <EventPage seq={Number(seq[1])} />;
  if (path === "/events") return <EventsPage tenants={props.tenants} />;
  if (path === "/visitors") return <VisitorsPage tenants={props.tenants} latest={props.latest} query={query} />;
  if (path === "/data") return <DataPage tenants={props.tenants} latest={props.latest} query={query} />;
  if (path === "/time") return <TimePage />;
  return (
    <section>
      <h1>Not found</h1>
      <p>
        The console has no page here. <Link href={`${base}/events`}>Go to the events</Link>.
      </p>
    </section>
  );
}

function Console(props: { onSignOut: () => void }) {
  const place = usePlace();
  const [tenants, setTenants] = useState<readonly Tenant[]>([]);
  const [latest, setLatest] = useState<Picked | null>(null);
  const [error, setError] = useState<unknown>(null);
  const main = useRef<HTMLElement>(null);
  useEffect(() => {
    // The pickers start where the traffic goes: the latest stored event's account and profile. The accounts are
    // shown once both are known, so that a picker does not start on another profile and move.
    const newest = call<StoredEventsPage>("/admin/events?order=desc&limit=1").then(
      (page) => page.events[0] ?? null,
      () => null,
    );
    Promise.all([call<Tenant[]>("/admin/accounts"), newest]).then(([accounts, event]) => {
      setLatest(event ? { account: event.account, profile: event.profile } : null);
      setTenants(accounts);
    }, setError);
  }, []);
  useEffect(() => {
    if (place.path === "") navigate(`${base}/events`, { replace: true });
  }, [place.path]);
  // A new page: its heading is read first, as after a page load (the first page starts at the top, as any does).
  const moved = useRef(false);
  useEffect(() => {
    const heading = main.current?.querySelector("h1");
    if (heading && moved.current) {
      heading.setAttribute("tabindex", "-1");
      heading.focus({ preventScroll: true });
    }
    moved.current = true;
    const title = heading?.textContent;
    document.title = title ? `${title} · svc-hub console` : "svc-hub console";
  }, [place.path]);
  const current = sections.find((section) => place.path.startsWith(section.path));
  return (
    <>
      <a class="skip" href="#main">
        Skip to the content
      </a>
      <header class="top">
        <span class="brand">svc-hub console</span>
        <nav aria-label="Console">
          <ul>
            {sections.map((section) => (
              <li key={section.path}>
                <Link
                  href={`${base}${section.path}`}
                  class={current === section ? "current" : undefined}
                  label={current === section ? `${section.title} (current page)` : undefined}
                >
                  {section.title}
                </Link>
              </li>
            ))}
            <li>
              <a href={`${base}/api`}>API reference</a>
            </li>
          </ul>
        </nav>
        <button type="button" class="quiet" onClick={props.onSignOut}>
          Sign out
        </button>
      </header>
      <main id="main" ref={main}>
        <ErrorNote error={error} />
        <Page place={place} tenants={tenants} latest={latest} />
      </main>
    </>
  );
}

function App() {
  const [signedIn, setSignedIn] = useState(() => readToken() !== null);
  const [expired, setExpired] = useState(false);
  useEffect(() => {
    whenUnauthorised(() => {
      forgetToken();
      setExpired(true);
      setSignedIn(false);
    });
  }, []);
  if (!signedIn) {
    return (
      <SignIn
        expired={expired}
        onSignedIn={() => {
          setExpired(false);
          setSignedIn(true);
        }}
      />
    );
  }
  return (
    <Console
      onSignOut={() => {
        forgetToken();
        setSignedIn(false);
      }}
    />
  );
}

const root = document.getElementById("console");
if (root) render(<App />, root);
