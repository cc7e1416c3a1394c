/** The time limits of the browser suites. */

/**
 * How long a test waits for what it looks for (a page state, an answer, a stored event): generous, since the
 * machine may be busy (`npm run test:busy` runs the suites with every core held busy), and never longer than it
 * takes to show. It is also every Playwright action's limit, and the start of Chromium's.
 */
export const waitLimitMs = 60_000;

/** How long one test may take: a few waits at their limit. */
export const testLimitMs = 3 * waitLimitMs;
