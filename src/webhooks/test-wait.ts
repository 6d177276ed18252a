/**
 * How long `POST /v1/webhook-endpoints/{id}/test` waits for its attempt before answering
 * (docs/webhooks.md): a receiver that hangs holds the API request this long at most, not the
 * attempt's 15 s. The attempt goes on after the answer; the delivery records its outcome.
 */
export const TEST_ANSWER_WAIT_MS = 5_000;

/**
 * Waits for `work` at most `ms`: true when it finished (its failure is then the caller's), false
 * when it goes on (the caller answers with what is stored so far).
 */
export async function waitAtMost(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const finished = await Promise.race([
    work.then(
      () => true,
      () => true,
    ),
    new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    }),
  ]);
  clearTimeout(timer);
  if (finished) await work;
  else work.catch(() => {});
  return finished;
}
