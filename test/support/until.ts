const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until the condition holds; bounded so a broken pool fails the test instead of hanging it. */
export async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(20);
  }
}
