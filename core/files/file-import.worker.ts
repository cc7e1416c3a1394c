import type { BackgroundWorker } from "../ports/background.port.ts";
import type { FileImportService } from "./file-import.use-cases.ts";

/**
 * DEC-FIL-02, DEC-OPS-04: takes the files of the drop folders (looked at on every scheduler pass, so at
 * least once a second), then processes the received files one at a time, oldest first. `/admin/wait`
 * drains it; the profile worker, registered after it, applies the events it wrote.
 */
export function fileImportWorker(deps: { imports: FileImportService }): BackgroundWorker {
  return {
    name: "file-imports",
    async runDue() {
      await deps.imports.sweepLeftLeases();
      const taken = await deps.imports.pickUpDropped();
      return taken + (await deps.imports.processNext());
    },
    nextDueAt() {
      return deps.imports.nextDueAt();
    },
  };
}
