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
