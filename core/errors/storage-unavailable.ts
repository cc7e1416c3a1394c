/**
 * The store cannot be reached or written right now (a lock held too long, a full disk): the answer is 503 and
 * never 200. Thrown by the adapters that know it, and by use cases that gave up on a store that kept changing.
 */
export class StorageUnavailableError extends Error {
  override readonly name: string = "StorageUnavailableError";
}
