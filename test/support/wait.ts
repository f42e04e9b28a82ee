/** Polls a condition until it holds; a deadline turns a hang into a failure that says what it waited for. */
export async function waitUntil(
  condition: () => Promise<boolean> | boolean,
  timeoutMs = 20_000,
  what = 'the condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what} did not hold within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Waits for the next fixed window when the current one has less than `marginSeconds` left, so a
 * test that counts requests against a per-window limit never straddles two windows.
 */
export async function awayFromWindowEdge(windowSeconds = 60, marginSeconds = 15): Promise<void> {
  const into = (Date.now() / 1000) % windowSeconds;
  if (into > windowSeconds - marginSeconds) {
    await new Promise((resolve) => setTimeout(resolve, (windowSeconds + 1 - into) * 1000));
  }
}
