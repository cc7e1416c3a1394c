/**
 * Hosted data layers (DLE-*, DEC-DLE-*): which paths, content types and bodies are valid, which changes a
 * data layer accepts, and how a change is published, retried and reported; the use cases of the hosted data
 * layer API and the background worker that publishes the changes.
 */

export {
  type BodyEncoding,
  dataLayerScript,
  readDataLayerEncoding,
  validateDataLayerBody,
  validateDataLayerContentType,
  validateDataLayerPath,
  validateProfilePath,
} from "./datalayer.rules.ts";
export { DataLayerService, type DataLayerServiceDeps } from "./datalayer.use-cases.ts";
export { dataLayerPublisher } from "./datalayer-publisher.worker.ts";
