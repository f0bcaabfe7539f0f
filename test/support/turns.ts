/**
 * Runs `work` and counts the turns of the event loop taken meanwhile: none means it held the loop
 * from start to end, and a Slack request arriving then would have waited for all of it.
 */
export async function turnsDuring<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let running = true;
  const turn = () => {
    if (!running) return;
    turns++;
    setImmediate(turn);
  };
  setImmediate(turn);
  try {
    const result = await work();
    return { result, turns };
  } finally {
    running = false;
  }
}
