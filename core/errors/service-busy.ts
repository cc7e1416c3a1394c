/**
 * Work refused because the process is saturated (the hasher's queue is full, too many attempts for one name
 * are waiting): answered 503 with Retry-After, never queued without end. Thrown by the adapters' queues and by
 * the sign-in use cases, which also tell it apart from a failure of the user's (DEC-SES-01).
 */
export class ServiceBusyError extends Error {
  override readonly name = "ServiceBusyError";
}
