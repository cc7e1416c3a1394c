/** The service's notion of now: the virtual clock (DEC-OPS-02). Milliseconds since the epoch, UTC. */
export interface Clock {
  now(): number;
}
