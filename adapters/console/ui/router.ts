/** Paths under /console, moved between with the History API; the server answers the same page for each. */
import { useEffect, useState } from "preact/hooks";

export const base = "/console";

const changed = "svc-hub:navigate";

export function navigate(path: string, options: { replace?: boolean } = {}): void {
  if (options.replace) history.replaceState(null, "", path);
  else history.pushState(null, "", path);
  window.dispatchEvent(new Event(changed));
}

export interface Place {
  /** The path after /console, without a trailing slash ("" for the start). */
  readonly path: string;
  readonly query: URLSearchParams;
}

function placeNow(): Place {
  const path = location.pathname.startsWith(base) ? location.pathname.slice(base.length) : location.pathname;
  return { path: path.replace(/\/+$/, ""), query: new URLSearchParams(location.search) };
}

export function usePlace(): Place {
  const [place, setPlace] = useState(placeNow);
  useEffect(() => {
    const update = () => setPlace(placeNow());
    window.addEventListener("popstate", update);
    window.addEventListener(changed, update);
    return () => {
      window.removeEventListener("popstate", update);
      window.removeEventListener(changed, update);
    };
  }, []);
  return place;
}

/** A link click handled in the page (a plain click only: a new tab or window keeps the browser's way). */
export function follow(event: MouseEvent, path: string): void {
  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  navigate(path);
}
