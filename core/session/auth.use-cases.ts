import type { Grant, Limits } from "../config/config.model.ts";
import { type ManagementError, managementError, ServiceBusyError } from "../errors/index.ts";
import type { Clock } from "../ports/clock.port.ts";
import type { EventLoop } from "../ports/event-loop.port.ts";
import type { Digests, SecretHasher } from "../ports/hashing.port.ts";
import type { IdSource } from "../ports/ids.port.ts";
import type { LockoutKind } from "../ports/sessions.store.ts";
import type { Stores } from "../ports/stores.ts";
import type { TokenSigner } from "../ports/token-signer.port.ts";
import { err, ok, type Result } from "../result.ts";
import { equalInConstantTime } from "../values/constant-time.ts";
import { KeyedPace } from "../values/keyed-pace.ts";
import { KeyedPlaces } from "../values/keyed-places.ts";
import { isStorableText } from "../values/storable-text.rules.ts";
import {
  type LockoutPolicy,
  type LockoutState,
  lockoutPolicyFromLimits,
  lockoutRelevantUntil,
  noFailures,
  reserveAttempt,
  settleAttempt,
  unlockAttempts,
  withdrawAttempt,
} from "./lockout.rules.ts";
import { apiKeysToCheck } from "./secrets.rules.ts";
import {
  bearerTokenOf,
  decideTenantAccess,
  isSessionLive,
  isTokenOfCurrentGeneration,
  mayLogIn,
  type SessionPolicy,
  sessionPolicyFromLimits,
  shouldTouchSession,
  type TenantAccess,
} from "./session.rules.ts";
import { maxEmailLength } from "./users.use-cases.ts";

/** Who made an authenticated call, and what they may reach. */
export interface Principal {
  readonly email: string;
  readonly grants: readonly Grant[];
  readonly via: "session" | "token";
}

export interface IssuedSession {
  /** The JSESSIONID cookie value. */
  readonly cookie: string;
  readonly utk: string;
}

export interface AuthServiceDeps {
  readonly stores: Stores;
  readonly hasher: SecretHasher;
  readonly ids: IdSource;
  /** The virtual clock (DEC-OPS-02): sessions, lockouts and tokens are timed on it. */
  readonly clock: Clock;
  readonly limits: Limits;
  /** The sha256 of a session's cookie and utk, which the store keeps in their place. */
  readonly digests: Digests;
  /** Signs and verifies the bearer tokens (JWT). */
  readonly tokens: TokenSigner;
  /**
   * Turns of the loop, and real time: how long an attempt has waited for the ones in flight beside it, and the
   * pacing of key checks while a name is locked, are about this process's load, not the virtual clock.
   */
  readonly eventLoop: EventLoop;
}

/** DEC-AUT-01: bearer tokens live 30 minutes. */
export const tokenLifetimeSeconds = 1800;
const tokenIssuer = "svc-hub";
const jwtSecretKey = "auth.jwtSecret";
/** Attempts to write a lockout state before giving up on a store that keeps changing under us. */
const maxLockoutRetries = 100;
/**
 * How long an attempt waits for the attempts in flight beside it (a burst of logins for one name) before it
 * is answered busy (503 with Retry-After), and how often it looks again.
 */
const lockoutWaitMs = 10_000;
const lockoutPollMs = 15;
const lockoutMaxPollMs = 250;
/** Attempts for one name that wait in this process at once; more are answered busy at once. */
const maxWaitersPerName = 256;
/**
 * The logins and token requests of one client address worked on at once in this process, how many more of it
 * wait their turn, and for how long; past either it is answered busy, before anything is read or written.
 */
const attemptsAtOncePerSource = 8;
const attemptsWaitingPerSource = 256;
const attemptTurnWaitMs = 10_000;

/**
 * Whether a username may name a user, so that the attempt is counted and checked (DEC-SES-01). No user has a
 * longer name, nor one holding U+0000, which no store keeps (decisions of our own, "Text that a store cannot
 * keep"): such a name is refused as a wrong password is, before a lockout record is written for it (anyone could
 * fill the store with records of made-up 16 KB names otherwise).
 */
function mayNameUser(username: string | undefined): username is string {
  const trimmed = username?.trim();
  return trimmed !== undefined && trimmed !== "" && trimmed.length <= maxEmailLength && isStorableText(trimmed);
}

/** DEC-SES-01: usernames are counted case-insensitively and whether or not they exist. */
function lockoutName(username: string): string {
  return username.trim().toLowerCase();
}

function parseLockout(text: string | undefined): LockoutState {
  if (!text) return noFailures;
  try {
    const value = JSON.parse(text) as LockoutState;
    if (!Array.isArray(value.failures)) return noFailures;
    return Array.isArray(value.pending) ? value : { ...value, pending: [] };
  } catch {
    return noFailures;
  }
}

/**
 * The use-cases of sessions, API keys and tenancy: login (SES-*), logout, the v1 session check (SES-07),
 * token issue and check (AUT-01/02), and tenant access (AUT-03).
 */
export class AuthService {
  private readonly lockoutPolicies: Readonly<Record<LockoutKind, LockoutPolicy>>;
  private readonly sessionPolicy: SessionPolicy;
  private jwtSecret: string | null = null;
  private dummyHash: Promise<string> | null = null;
  /** Attempts waiting for the attempts in flight, per kind and name, in this process. */
  private readonly waiters = new Map<string, number>();
  /** The turns of each client address's attempts (attemptsAtOncePerSource), in this process. */
  private readonly attemptTurns = new KeyedPlaces(attemptsAtOncePerSource, attemptsWaitingPerSource);
  /** DEC-AUT-01: keys checked while their name is locked, one a second (of real time) for a name and a client. */
  private readonly lockedKeyChecks: KeyedPace;

  constructor(private readonly deps: AuthServiceDeps) {
    this.lockedKeyChecks = new KeyedPace(
      1000,
      4,
      () => deps.eventLoop.monotonicMs(),
      (ms) => deps.eventLoop.sleep(ms),
    );
    this.lockoutPolicies = {
      password: lockoutPolicyFromLimits(deps.limits, "password"),
      "api-key": lockoutPolicyFromLimits(deps.limits, "api-key"),
    };
    this.sessionPolicy = sessionPolicyFromLimits(deps.limits);
  }

  /**
   * SES-01..10, DEC-SES-01..04: checks the password under the lockout and opens a session. `source`: the
   * client's address, for the hasher's fair share of its queue between addresses.
   */
  async login(
    username: string | undefined,
    password: string | undefined,
    source: string,
  ): Promise<Result<IssuedSession, ManagementError>> {
    if (!mayNameUser(username)) return err(managementError("authenticationFailed"));
    // No user has a longer name: refused before a lockout record is written for it (anyone could fill the
    // store with records of made-up 16 KB names otherwise).
    if (!username?.trim() || username.trim().length > maxEmailLength)
      return err(managementError("authenticationFailed"));
    return this.inTurnOf(source, () => this.loginInTurn(username, password, source));
  }

  private async loginInTurn(
    username: string,
    password: string | undefined,
    source: string,
  ): Promise<Result<IssuedSession, ManagementError>> {
    const user = await this.deps.stores.tenancy.findUser(username.trim());
    const attempt = await this.attemptUnderLockout("password", lockoutName(username), source, async () => {
      // An unknown user costs a hash check too, so the answer's timing does not tell which users exist.
      const hash = user?.passwordHash ?? (await this.hashOfNothing());
      return (await this.deps.hasher.verify(password ?? "", hash, source)) && user !== null && password !== undefined;
    });
    if (!attempt.ok) return attempt;
    if (!user || !mayLogIn(user)) return err(managementError("loginPermissionDenied"));

    const now = this.deps.clock.now();
    const cookie = this.deps.ids.randomToken(32);
    const utk = this.deps.ids.randomToken(24);
    const sessionId = this.deps.ids.randomHex(16);
    // At most maxSessionsPerUser live sessions a user: the oldest end first.
    await this.deps.stores.sessions.create(
      {
        id: sessionId,
        userEmail: user.email,
        cookieHash: await this.deps.digests.sha256Hex(cookie),
        utkHash: await this.deps.digests.sha256Hex(utk),
        createdAt: now,
        lastSeenAt: now,
      },
      this.deps.limits.maxSessionsPerUser,
    );
    // SES-13: the password was checked against the hash read before this attempt waited its turn. A reset
    // (or a disable) committed since then ends the session made from it here; one that commits after this
    // read deletes the user's sessions itself after its write, this one included. The read must see every
    // commit made before it: the store's read cache asks for other processes' commits once per turn of the
    // event loop, so it is read in a later turn than the session's insert.
    await this.deps.eventLoop.nextTurn();
    const current = await this.deps.stores.tenancy.findUser(user.email);
    if (!current || current.passwordHash !== user.passwordHash || !mayLogIn(current)) {
      await this.deps.stores.sessions.delete(sessionId);
      return err(
        managementError(
          current && current.passwordHash !== user.passwordHash ? "authenticationFailed" : "loginPermissionDenied",
        ),
      );
    }
    return ok({ cookie, utk });
  }

  /** SES-11: ends the session of the cookie (and so its utk). */
  async logout(cookie: string | undefined): Promise<Result<void, ManagementError>> {
    if (!cookie) return err(managementError("authenticationFailed"));
    const session = await this.deps.stores.sessions.findByCookieHash(await this.deps.digests.sha256Hex(cookie));
    if (!session) return err(managementError("authenticationFailed"));
    await this.deps.stores.sessions.delete(session.id);
    return ok(undefined);
  }

  /** SES-07, SES-12, DEC-GEN-02, DEC-SES-02: the cookie and the utk of one live session, of an enabled user. */
  async authenticateSession(
    cookie: string | undefined,
    utk: string | undefined,
  ): Promise<Result<Principal, ManagementError>> {
    const refused = err(managementError("authenticationFailed"));
    if (!cookie || !utk) return refused;
    const session = await this.deps.stores.sessions.findByCookieHash(await this.deps.digests.sha256Hex(cookie));
    // The utk's digest is compared in constant time, as a secret's is: how long a refusal takes tells nothing of
    // how much of the stored one a guess matched.
    if (!session || !equalInConstantTime(session.utkHash, await this.deps.digests.sha256Hex(utk))) return refused;
    const now = this.deps.clock.now();
    if (!isSessionLive(session, now, this.sessionPolicy)) {
      await this.deps.stores.sessions.delete(session.id);
      return refused;
    }
    const user = await this.deps.stores.tenancy.findUser(session.userEmail);
    if (!user || user.disabled) return refused;
    if (shouldTouchSession(session, now)) await this.deps.stores.sessions.touch(session.id, now);
    return ok({ email: user.email, grants: user.grants, via: "session" });
  }

  /** DEC-AUT-01, DEC-AUT-02: a JWT for a user's API key, under a lockout of its own; `source` as for login. */
  async issueToken(
    username: string | undefined,
    key: string | undefined,
    source: string,
  ): Promise<Result<{ token: string }, ManagementError>> {
    if (!mayNameUser(username)) return err(managementError("authenticationFailed"));
    if (!username?.trim() || username.trim().length > maxEmailLength)
      return err(managementError("authenticationFailed"));
    return this.inTurnOf(source, () => this.issueTokenInTurn(username, key, source));
  }

  private async issueTokenInTurn(
    username: string,
    key: string | undefined,
    source: string,
  ): Promise<Result<{ token: string }, ManagementError>> {
    const user = await this.deps.stores.tenancy.findUser(username.trim());
    const keys = user
      ? (await this.deps.stores.tenancy.listApiKeys(user.email)).filter((apiKey) => apiKey.revokedAt === null)
      : [];
    let matched: (typeof keys)[number] | null = null;
    const attempt = await this.attemptUnderLockout("api-key", lockoutName(username), source, async () => {
      // One hash for an issued key, however many keys the user holds; a wrong key costs as many as the user's
      // configured keys, and at least one, as an unknown user's does.
      const candidates = key ? apiKeysToCheck(key, keys) : [];
      if (candidates.length === 0 || !key) {
        await this.deps.hasher.verify(key ?? "", await this.hashOfNothing(), source);
        return false;
      }
      for (const apiKey of candidates) {
        if (await this.deps.hasher.verify(key, apiKey.keyHash, source)) {
          matched = apiKey;
          return true;
        }
      }
      return false;
    });
    if (!attempt.ok) return attempt;
    // DEC-AUT-02: the key and its user as they stand now, not as they were read before this attempt waited
    // its turn: a key revoked, reset or given to another user, or a user disabled, meanwhile mints no token.
    // (In a later turn of the event loop than the check, for the store's read cache: see login.)
    await this.deps.eventLoop.nextTurn();
    const checked = matched as (typeof keys)[number] | null;
    const stored = checked ? await this.deps.stores.tenancy.findApiKey(checked.id) : null;
    if (
      !checked ||
      !stored ||
      stored.revokedAt !== null ||
      stored.keyHash !== checked.keyHash ||
      stored.userEmail.toLowerCase() !== checked.userEmail.toLowerCase()
    ) {
      return err(managementError("authenticationFailed"));
    }
    const current = user ? await this.deps.stores.tenancy.findUser(user.email) : null;
    if (!current || !mayLogIn(current)) return err(managementError("loginPermissionDenied"));

    const issuedAt = Math.floor(this.deps.clock.now() / 1000);
    const token = await this.deps.tokens.sign(
      {
        subject: current.email,
        issuer: tokenIssuer,
        issuedAt,
        notBefore: issuedAt,
        expiresAt: issuedAt + tokenLifetimeSeconds,
        id: this.deps.ids.randomHex(16),
        // The generation of the user as read now: a reset or a disabling that commits from here on ends the token.
        generation: current.tokenGeneration,
      },
      await this.signingKey(),
    );
    return ok({ token });
  }

  /**
   * AUT-01, AUT-02, DEC-GEN-02: `Authorization: Bearer <JWT>` from /v2/auth, unexpired on the virtual clock,
   * issued after the user's password was last reset and the user last disabled (UserRecord.tokenGeneration).
   */
  async authenticateBearer(authorization: string | undefined): Promise<Result<Principal, ManagementError>> {
    const refused = err(managementError("authenticationFailed"));
    const token = bearerTokenOf(authorization);
    if (token === null) return refused;
    const verified = await this.deps.tokens.verify(token, await this.signingKey(), {
      issuer: tokenIssuer,
      nowMs: this.deps.clock.now(),
    });
    if (verified === null) return refused;
    const user = await this.deps.stores.tenancy.findUser(verified.subject);
    if (!user || user.disabled) return refused;
    // Issued before the user's password was reset or the user was disabled: it does not outlive either.
    if (!isTokenOfCurrentGeneration(verified.generation, user.tokenGeneration)) return refused;
    return ok({ email: user.email, grants: user.grants, via: "token" });
  }

  /** AUT-03, DEC-GEN-03/04: whether the principal may reach this account and profile, existence first. */
  async decideAccess(principal: Principal, account: string, profile: string): Promise<TenantAccess> {
    // A name no store can hold names no account (decisions of our own, "Text that a store cannot keep").
    const accountRecord = isStorableText(account) ? await this.deps.stores.tenancy.findAccount(account) : null;
    const profileRecord =
      accountRecord && isStorableText(profile) ? await this.deps.stores.tenancy.findProfile(account, profile) : null;
    return decideTenantAccess({
      accountExists: accountRecord !== null,
      profileExists: profileRecord !== null,
      grants: principal.grants,
      account,
      profile,
    });
  }

  /**
   * `attempt` in a turn of `source`'s (second probe, finding 2): a client address has at most
   * attemptsAtOncePerSource logins and token requests worked on at once, and the others wait for a turn in its
   * line, first come first served; past the line or the wait, the request is answered busy (503) having read and
   * written nothing. An attempt reads and writes the store (its lockout reservation and settlement are commits,
   * which the local libSQL store makes on the event loop's thread) and takes the database's connections and the
   * hasher: how many run at once is what one address's flood costs every other. Its excess waits rather than
   * being refused, because a flooding client sends again as soon as it is answered: refusals would only send
   * the flood round the event loop again, ahead of everyone else's requests.
   */
  private async inTurnOf<T>(source: string, attempt: () => Promise<T>): Promise<T> {
    if (!this.attemptTurns.tryTake(source)) {
      const turn = this.attemptTurns.waitFor(source);
      if (turn === null)
        throw new ServiceBusyError(`${attemptsWaitingPerSource} attempts of one client address are waiting already`);
      const since = this.deps.eventLoop.monotonicMs();
      await turn;
      // Waited longer than a client is left without an answer (the server closes such a connection after 10 s):
      // the turn goes on to the next without touching the store.
      if (this.deps.eventLoop.monotonicMs() - since > attemptTurnWaitMs) {
        this.attemptTurns.give(source);
        throw new ServiceBusyError(`an attempt waited its turn for more than ${attemptTurnWaitMs} ms`);
      }
    }
    try {
      return await attempt();
    } finally {
      this.attemptTurns.give(source);
    }
  }

  /**
   * DEC-SES-01, DEC-AUT-01: reserves the attempt before the secret is checked (compare-and-set on the stored
   * state, retried when another attempt got in first), so the lockout holds across processes and parallel
   * attempts; waits while the failures and the attempts in flight reach the limit. A key checked while its
   * name is locked (DEC-AUT-01) passes when right, and is answered 1402 when wrong, without being counted.
   */
  private async attemptUnderLockout(
    kind: LockoutKind,
    name: string,
    source: string,
    check: () => Promise<boolean>,
  ): Promise<Result<void, ManagementError>> {
    const { lockouts } = this.deps.stores;
    const policy = this.lockoutPolicies[kind];
    const waitKey = `${kind}\u0000${name}`;
    const waitUntil = this.deps.eventLoop.monotonicMs() + lockoutWaitMs;
    let at = 0;
    let pauseMs = lockoutPollMs;
    let waiting = false;
    try {
      for (let tries = 0; ; ) {
        if (tries >= maxLockoutRetries)
          throw new Error(`lockout state of ${kind} kept changing; gave up after ${tries} tries`);
        // The time of the attempt is when it is reserved, not when it began to wait: an earlier time would
        // date it before failures recorded while it waited.
        at = this.deps.clock.now();
        const row = await lockouts.read(kind, name);
        const { decision, next } = reserveAttempt(parseLockout(row?.state), at, policy);
        if (decision.kind === "locked") return err(managementError("tooManyLoginAttempts"));
        if (decision.kind === "wait") {
          // As many attempts as the limit are being checked: this one is checked once one of them is known.
          // Waiters are few a name and back off, so that a burst does not turn into reads of the store.
          if (!waiting) {
            const count = this.waiters.get(waitKey) ?? 0;
            if (count >= maxWaitersPerName)
              throw new ServiceBusyError(`${count} ${kind} attempts for one name are waiting already`);
            this.waiters.set(waitKey, count + 1);
            waiting = true;
          }
          if (this.deps.eventLoop.monotonicMs() >= waitUntil)
            throw new ServiceBusyError(
              `${kind} attempts for one name kept the limit in flight for ${lockoutWaitMs} ms`,
            );
          await this.deps.eventLoop.sleep(pauseMs + this.deps.ids.randomUnit() * pauseMs);
          pauseMs = Math.min(pauseMs * 2, lockoutMaxPollMs);
          continue;
        }
        if (decision.kind === "check-locked") return this.checkWhileLocked(name, source, check);
        if (await this.writeLockout(kind, name, row?.version ?? null, next)) break;
        tries += 1;
      }
    } finally {
      if (waiting) {
        const left = (this.waiters.get(waitKey) ?? 1) - 1;
        if (left > 0) this.waiters.set(waitKey, left);
        else this.waiters.delete(waitKey);
      }
    }
    let succeeded: boolean;
    try {
      succeeded = await check();
    } catch (error) {
      // Turned away before the secret was checked (503 busy): not a failure of the user's (DEC-SES-01). Any
      // other error leaves the attempt in flight, to count as a failure once it is a minute old.
      if (error instanceof ServiceBusyError)
        await this.updateLockout(kind, name, (state) => withdrawAttempt(state, at)).catch(() => undefined);
      throw error;
    }
    await this.updateLockout(kind, name, (state) => settleAttempt(state, at, succeeded, policy));
    return succeeded ? ok(undefined) : err(managementError("authenticationFailed"));
  }

  /**
   * DEC-AUT-01: a key checked while its name is locked: a wrong one is 1402 and not counted, the right one
   * passes. It reserves nothing of the name's (a flood of wrong keys would otherwise hold every place and turn
   * the owner away); the lock slows guessing per client instead: one check a second for a name and a client
   * (a few more wait their turn, past that 1402 unchecked), so a guesser is slowed and the owner, another
   * client, is not.
   */
  private async checkWhileLocked(
    name: string,
    source: string,
    check: () => Promise<boolean>,
  ): Promise<Result<void, ManagementError>> {
    if (!(await this.lockedKeyChecks.take(`${name}\u0000${source}`)))
      return err(managementError("tooManyLoginAttempts"));
    return (await check()) ? ok(undefined) : err(managementError("tooManyLoginAttempts"));
  }

  /**
   * DEC-SES-01: ends the lock and forgets the failures of a user name, for its passwords and its keys alike:
   * the admin API's unlock, and a password reset (the user must be able to log in with the new password
   * at once, whatever an attacker tried before).
   */
  async unlock(username: string): Promise<void> {
    for (const kind of ["password", "api-key"] as const) {
      // No record is no lock: none is written for it.
      if (await this.deps.stores.lockouts.read(kind, lockoutName(username)))
        await this.updateLockout(kind, lockoutName(username), unlockAttempts);
    }
  }

  /** Writes the state `next` makes of the stored one, trying again while another attempt changes it first. */
  private async updateLockout(
    kind: LockoutKind,
    name: string,
    next: (state: LockoutState) => LockoutState,
  ): Promise<void> {
    for (let tries = 0; tries < maxLockoutRetries; tries += 1) {
      const row = await this.deps.stores.lockouts.read(kind, name);
      if (await this.writeLockout(kind, name, row?.version ?? null, next(parseLockout(row?.state)))) return;
    }
  }

  /** Compare-and-set of a state, with the time from which the session janitor may delete it. */
  private writeLockout(
    kind: LockoutKind,
    name: string,
    expectedVersion: number | null,
    state: LockoutState,
  ): Promise<boolean> {
    return this.deps.stores.lockouts.compareAndSet(
      kind,
      name,
      expectedVersion,
      JSON.stringify(state),
      lockoutRelevantUntil(state, this.lockoutPolicies[kind]),
    );
  }

  /** A hash of a random secret, checked against for unknown users so that they cost the same time. */
  private hashOfNothing(): Promise<string> {
    this.dummyHash ??= this.deps.hasher.hash(this.deps.ids.randomToken(16));
    return this.dummyHash;
  }

  /**
   * svc-hub's own admin API (POST /admin/reset): the store's signing key was erased; the next token is signed
   * (and every token checked) with the one the store holds then, a new one. Tokens signed before stop working.
   */
  forgetSigningKey(): void {
    this.jwtSecret = null;
  }

  /** The HS256 secret, made at first start and kept in the store so every node verifies every token. */
  private async signingKey(): Promise<string> {
    this.jwtSecret ??= await this.deps.stores.settings.setIfAbsent(jwtSecretKey, this.deps.ids.randomToken(32));
    return this.jwtSecret;
  }
}
