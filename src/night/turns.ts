/**
 * Turns for a night's heavy synchronous steps (reading a page's records): one step per turn of
 * the event loop, in the order asked. Answers come back in bursts (every lane's gap ends at
 * about the same moment), and a group commit hands back a batch of them at once; read one
 * after another in the same turn, they held the loop for as long as the whole batch took, so a
 * lane's timer that was due to send (P10: on time, not late) and the ends of other answers
 * (noted late, so the next gap counted from a late end) waited behind them. Between two turns
 * the loop runs its due timers and reads its sockets.
 */
export type Turn = () => Promise<void>;

/**
 * `defer` runs its function on a later turn of the loop: `setImmediate`, whose callbacks queued
 * while the loop is running them wait for its next turn, after its timers and its sockets.
 */
export function turns(defer: (fn: () => void) => void = setImmediate): Turn {
  const waiting: (() => void)[] = [];
  let scheduled = false;
  const next = (): void => {
    waiting.shift()?.();
    if (waiting.length > 0) defer(next);
    else scheduled = false;
  };
  return () =>
    new Promise<void>((resolve) => {
      waiting.push(resolve);
      if (!scheduled) {
        scheduled = true;
        defer(next);
      }
    });
}
