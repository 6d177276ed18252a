/**
 * The cursor of a listing kept newest first by (created_at, id): opaque base64url JSON with a
 * version, a tag naming the listing and its owner (a cursor of another listing or tenant is
 * refused), and the last row's position.
 */

import { invalidCursor } from "../errors/common";
import { sha256Hex } from "./crypto";
/** The tag binding a cursor to one listing of one owner. */
export async function cursorTag(listing: string, ownerId: string): Promise<string> {
  return (await sha256Hex(`${listing}:${ownerId}`)).slice(0, 12);
}

export function encodeCursor(tag: string, createdAt: string, id: string): string {
  return btoa(JSON.stringify({ v: 1, t: tag, c: createdAt, i: id }))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");
}

/** The position a cursor names; `400 invalid_cursor` (at `/cursor`) when malformed or another listing's. */
export function decodeCursor(cursor: string, tag: string): { created_at: string; id: string } {
  const invalid = invalidCursor();
  let p: { v?: unknown; t?: unknown; c?: unknown; i?: unknown };
  try {
    p = JSON.parse(atob(cursor.replaceAll("-", "+").replaceAll("_", "/")));
  } catch {
    throw invalid;
  }
  if (p?.v !== 1 || p.t !== tag || typeof p.c !== "string" || typeof p.i !== "string") throw invalid;
  return { created_at: p.c, id: p.i };
}
