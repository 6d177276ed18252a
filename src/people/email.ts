/** Email addresses as the directory keys them: trimmed and lower-cased, at most 254 characters. */
const SHAPE = /^[^\s@<>(),;:"\\[\]]+@[^\s@<>(),;:"\\[\]]+\.[^\s@<>(),;:"\\[\]]+$/;

export function normaliseEmail(input: unknown): string | null {
  if (typeof input !== "string") return null;
  const email = input.trim().toLowerCase();
  return email.length <= 254 && SHAPE.test(email) ? email : null;
}
