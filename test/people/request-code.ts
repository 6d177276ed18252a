import type { Env } from "../../src/env";
import { requestSignInCode } from "../../src/people/sign-in";

/** Asks for a sign-in code through the service, then waits for what it does after answering (the code and its mail). */
export async function requestCode(env: Env, input: Parameters<typeof requestSignInCode>[1]): Promise<{ email: string }> {
  const after: Promise<unknown>[] = [];
  const answer = await requestSignInCode(env, input, (work) => after.push(work));
  await Promise.all(after);
  return answer;
}
