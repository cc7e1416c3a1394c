/** The virtual clock, waiting for background work, and a reset to the configuration (confirmed first). */
import { useEffect, useState } from "preact/hooks";
import { call } from "../api.ts";
import { ErrorNote, Pairs } from "../components.tsx";
import type { Clock } from "../types.ts";

interface WaitAnswer {
  readonly complete: boolean;
  readonly processed: Readonly<Record<string, number>>;
  readonly nextDueAt: string | null;
}

export function TimePage() {
  const [clock, setClock] = useState<Clock | null>(null);
  const [by, setBy] = useState("1h");
  const [error, setError] = useState<unknown>(null);
  const [said, setSaid] = useState("");
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState(false);

  const act = async (doing: string, work: () => Promise<string>) => {
    setBusy(true);
    setError(null);
    setSaid(`${doing}…`);
    try {
      setSaid(await work());
    } catch (problem) {
      setSaid("");
      setError(problem);
    } finally {
      setBusy(false);
    }
  };
  useEffect(() => {
    call<Clock>("/admin/clock").then(setClock, setError);
  }, []);

  return (
    <section>
      <h1>Time and state</h1>
      {clock ? (
        <Pairs
          caption="The virtual clock"
          rows={[
            ["Now", clock.now],
            ["Ahead of real time by (ms)", clock.offsetMs],
            ["Timing", clock.timing],
          ]}
        />
      ) : null}
      <form
        class="inline-form"
        aria-label="Advance the clock"
        onSubmit={(event) => {
          event.preventDefault();
          act("Advancing the clock", async () => {
            const next = await call<Clock>("/admin/clock/advance", { method: "POST", body: { by: by.trim() } });
            setClock(next);
            return `The clock now reads ${next.now}.`;
          });
        }}
      >
        <div class="field">
          <label for="advance-by">Advance the clock by</label>
          <input
            id="advance-by"
            value={by}
            aria-describedby="advance-hint"
            onInput={(e) => setBy(e.currentTarget.value)}
          />
          <span class="hint" id="advance-hint">
            Milliseconds, or a duration such as 90s, 10m, 1d12h
          </span>
        </div>
        <button type="submit" disabled={busy}>
          Advance
        </button>
      </form>
      <div class="actions">
        <button
          type="button"
          disabled={busy}
          onClick={() =>
            act("Waiting for background work", async () => {
              const answer = await call<WaitAnswer>("/admin/wait", { method: "POST", body: {} });
              const done = Object.entries(answer.processed)
                .filter(([, count]) => count > 0)
                .map(([kind, count]) => `${kind} ${count}`)
                .join(", ");
              return answer.complete
                ? `Background work is done${done ? ` (${done})` : ""}.`
                : "The wait ended before the work did.";
            })
          }
        >
          Wait for background work
        </button>
        {confirming ? (
          <fieldset class="confirm">
            <legend>Reset to the configuration?</legend>
            <p>
              Reset erases every event, visitor, data layer, import, privacy transaction, revision and session, and
              applies the configuration again. It cannot be undone.
            </p>
            <button
              type="button"
              class="danger"
              disabled={busy}
              onClick={() => {
                setConfirming(false);
                act("Resetting", async () => {
                  await call("/admin/reset", { method: "POST", body: {} });
                  setClock(await call<Clock>("/admin/clock"));
                  return "Reset to the configuration.";
                });
              }}
            >
              Erase everything and reset
            </button>
            <button type="button" class="quiet" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </fieldset>
        ) : (
          <button type="button" class="danger" disabled={busy} onClick={() => setConfirming(true)}>
            Reset…
          </button>
        )}
      </div>
      <p role="status" aria-live="polite" class="said">
        {said}
      </p>
      <ErrorNote error={error} />
    </section>
  );
}
