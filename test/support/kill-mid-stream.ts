/**
 * Writers stream numbered writes; once `killAfter` are acknowledged, `kill` runs while the others
 * are still in flight. Each writer has its number (0..writers-1), e.g. to use a client of its own. Returns the numbers whose write was acknowledged: a durability test then
 * checks that every one of them is there after the restart.
 */
export async function writeUntilKilled(
  write: (n: number, writer: number) => Promise<boolean>,
  kill: () => void,
  { writers = 4, killAfter = 20, max = 400 }: { writers?: number; killAfter?: number; max?: number } = {},
): Promise<{ acknowledged: number[]; killed: boolean }> {
  const acknowledged: number[] = [];
  let next = 0;
  let killed = false;
  const writer = async (_: unknown, w: number): Promise<void> => {
    while (!killed && next < max) {
      const n = next++;
      try {
        if (await write(n, w)) acknowledged.push(n);
      } catch {
        // Refused or cut off by the kill: not acknowledged, so it may or may not be there.
      }
      if (acknowledged.length >= killAfter && !killed) {
        killed = true;
        kill();
      }
    }
  };
  await Promise.all(Array.from({ length: writers }, writer));
  return { acknowledged, killed };
}
