/**
 * A Durable Object's RPC interface as its callers see it: every method answers a promise. Workers
 * RPC types a stub's answers as what it can serialize, which cannot express free-form JSON fields
 * (metadata, provider output); each object's stub module gives its stub this type instead, once.
 */
export type Remote<T> = {
  [K in keyof T as K extends string ? K : never]: T[K] extends (...args: infer A) => infer R
    ? (...args: A) => Promise<Awaited<R>>
    : never;
};
