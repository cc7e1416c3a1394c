import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { classifyFileFailure, fileFailureMessage } from "../errors/index.ts";
import {
  currentState,
  type FileImportEvent,
  type FileImportState,
  fileStates,
  mayBeReceivedAgain,
  startImport,
  transitionFileImport,
} from "./file-import.machine.ts";

function apply(state: FileImportState, event: FileImportEvent) {
  const result = transitionFileImport(state, event);
  assert.ok(result.ok, JSON.stringify(result));
  return result.value;
}

const counts = { skipped: 1, failed: 2, succeeded: 3 };

describe("file import states (FIL-07, FIL-08, DEC-FIL-03)", () => {
  it("a completed import lists DOWNLOADING, DOWNLOADED, PROCESSING, PROCESSED in order, each with its time", () => {
    let state = startImport(1);
    const steps: Array<[FileImportEvent, string]> = [
      [{ type: "downloaded", at: 2 }, "queue-processing"],
      [{ type: "processing-started", at: 3 }, "read-rows"],
      [{ type: "processed", at: 4, counts, lastRowFailure: null }, "import-finished"],
    ];
    for (const [event, effect] of steps) {
      const { next, effects } = apply(state, event);
      assert.equal(effects[0]?.type, effect);
      state = next;
    }
    assert.deepEqual(
      state.status.map((entry) => entry.state),
      fileStates,
    );
    assert.deepEqual(
      state.status.map((entry) => entry.at),
      [1, 2, 3, 4],
    );
    assert.deepEqual(state.status[3], { state: "PROCESSED", at: 4, counts });
    assert.equal(state.finished, true);
  });

  it("PROCESSED carries the last row failure when a row failed", () => {
    const processing = apply(apply(startImport(1), { type: "downloaded", at: 2 }).next, {
      type: "processing-started",
      at: 3,
    }).next;
    const failure = fileFailureMessage("processingException");
    const { next } = apply(processing, { type: "processed", at: 4, counts, lastRowFailure: failure });
    assert.deepEqual(next.status.at(-1), { state: "PROCESSED", at: 4, counts, lastFailure: failure });
  });

  it("a file-level failure marks the entry of the state where it happened and ends the import there", () => {
    const failure = fileFailureMessage("unknownPrefix");
    const processing = apply(apply(startImport(1), { type: "downloaded", at: 2 }).next, {
      type: "processing-started",
      at: 3,
    }).next;
    const { next, effects } = apply(processing, { type: "failed", at: 5, failure });
    assert.deepEqual(next.status, [
      { state: "DOWNLOADING", at: 1 },
      { state: "DOWNLOADED", at: 2 },
      { state: "PROCESSING", at: 3, lastFailure: failure },
    ]);
    assert.equal(next.finished, true);
    assert.deepEqual(effects, [{ type: "import-finished", outcome: "failed" }]);
    assert.equal(transitionFileImport(next, { type: "processed", at: 6, counts, lastRowFailure: null }).ok, false);
  });

  it("a download failure stays on DOWNLOADING", () => {
    const { next } = apply(startImport(1), { type: "failed", at: 2, failure: fileFailureMessage("downloadFailed") });
    assert.equal(currentState(next), "DOWNLOADING");
    assert.equal(next.status.length, 1);
  });

  it("moves out of order are refused", () => {
    assert.equal(transitionFileImport(startImport(1), { type: "processing-started", at: 2 }).ok, false);
    assert.equal(
      transitionFileImport(startImport(1), { type: "processed", at: 2, counts, lastRowFailure: null }).ok,
      false,
    );
  });

  it("whatever happens, states keep their order, at most the last entry carries last_failure, and a finished import never moves", () => {
    const event = fc.oneof(
      fc.constant({ type: "downloaded", at: 0 } as FileImportEvent),
      fc.constant({ type: "processing-started", at: 0 } as FileImportEvent),
      fc.constant({ type: "processed", at: 0, counts, lastRowFailure: null } as FileImportEvent),
      fc.constant({
        type: "processed",
        at: 0,
        counts,
        lastRowFailure: fileFailureMessage("processingException"),
      } as FileImportEvent),
      fc.constant({
        type: "failed",
        at: 0,
        failure: fileFailureMessage("recordTooLarge", { size: 20, max: 10 }),
      } as FileImportEvent),
    );
    fc.assert(
      fc.property(fc.array(event, { maxLength: 8 }), (events) => {
        let state = startImport(0);
        for (const next of events) {
          const result = transitionFileImport(state, next);
          if (state.finished) assert.equal(result.ok, false);
          if (result.ok) state = result.value.next;
        }
        assert.deepEqual(
          state.status.map((entry) => entry.state),
          fileStates.slice(0, state.status.length),
        );
        for (const entry of state.status.slice(0, -1)) assert.equal(entry.lastFailure, undefined);
        const last = state.status.at(-1);
        if (last?.lastFailure !== undefined) assert.notEqual(classifyFileFailure(last.lastFailure), null);
      }),
    );
  });
});

describe("receiving a name again (DEC-FIL-04)", () => {
  const downloaded = () => apply(startImport(1), { type: "downloaded", at: 2 }).next;
  const processing = () => apply(downloaded(), { type: "processing-started", at: 3 }).next;

  it("a name whose import failed before any row became an event may be received again", () => {
    assert.equal(
      mayBeReceivedAgain(
        apply(startImport(1), { type: "failed", at: 2, failure: fileFailureMessage("downloadFailed") }).next,
      ),
      true,
    );
    assert.equal(
      mayBeReceivedAgain(
        apply(processing(), { type: "failed", at: 4, failure: fileFailureMessage("unknownPrefix") }).next,
      ),
      true,
    );
    assert.equal(
      mayBeReceivedAgain(
        apply(processing(), {
          type: "processed",
          at: 4,
          counts: { skipped: 0, failed: 3, succeeded: 0 },
          lastRowFailure: fileFailureMessage("processingException"),
        }).next,
      ),
      true,
    );
  });

  it("an import under way, one with rows imported, or one that finished without a failure keeps its name", () => {
    assert.equal(mayBeReceivedAgain(startImport(1)), false);
    assert.equal(mayBeReceivedAgain(processing()), false);
    assert.equal(
      mayBeReceivedAgain(
        apply(processing(), {
          type: "failed",
          at: 4,
          failure: fileFailureMessage("processingException"),
          counts: { skipped: 0, failed: 0, succeeded: 2 },
        }).next,
      ),
      false,
    );
    assert.equal(
      mayBeReceivedAgain(
        apply(processing(), {
          type: "processed",
          at: 4,
          counts: { skipped: 2, failed: 0, succeeded: 0 },
          lastRowFailure: null,
        }).next,
      ),
      false,
    );
    assert.equal(
      mayBeReceivedAgain(
        apply(processing(), {
          type: "processed",
          at: 4,
          counts: { skipped: 0, failed: 1, succeeded: 1 },
          lastRowFailure: fileFailureMessage("processingException"),
        }).next,
      ),
      false,
    );
  });
});
