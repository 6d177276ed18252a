/**
 * A reason quoted inside a sentence: without its own final period, since many reasons are whole
 * sentences ("No artifact '…' exists for this account.") and the quoting sentence ends itself.
 * An ellipsis stays.
 */
export function clause(reason: string): string {
  return reason.replace(/(?<!\.)\.$/, "");
}

/** A message that ends once: a final ".." (a sentence quoted and ended again) becomes ".". */
export function endOnce(message: string): string {
  return message.replace(/(?<!\.)\.\.$/, ".");
}
