/**
 * Secrets (the platform's provider keys, a tenant's own) out of text an upstream wrote, in every
 * form an upstream may echo them: as they are; URL-encoded (`%2B`, either hex case, and the form
 * style with `+`); JSON-escaped (`\/`, `\u002b`); base64 and base64url, padded or not, alone or
 * inside a longer base64 text (a `Basic` header of `user:key`, a token); and any run of
 * RUN or more consecutive characters of any of those forms, so a truncated or partly quoted key
 * goes too. Every provider message reaches a client, a log or a webhook through this function.
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let s = text;
  for (const secret of secrets) {
    if (!secret || secret.length < 4) continue;
    const f = formsOf(secret);
    // A base64 text carrying the key goes whole first, before its aligned part is cut out of it.
    s = redactBase64Carriers(s, secret);
    for (const form of f.exact) s = s.split(form).join("[redacted]");
    for (const form of f.percent) s = s.replace(new RegExp(escapeRegExp(form), "gi"), "[redacted]");
    if (secret.length >= RUN) s = redactRuns(s, f.grams);
  }
  return s;
}

/** The shortest run of a secret's characters that is redacted on its own. */
const RUN = 8;

const B64_CHARS = /[A-Za-z0-9+/_-]{12,}={0,2}/g;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function base64(bytes: Uint8Array): string {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

const urlSafe = (b64: string) => b64.replace(/\+/g, "-").replace(/\//g, "_");

function formsOf(secret: string): { exact: string[]; percent: string[]; grams: Set<string> } {
  const bytes = new TextEncoder().encode(secret);
  const json = JSON.stringify(secret).slice(1, -1);
  const jsonSlash = json.replace(/\//g, "\\/");
  const jsonUnicode = [...secret]
    .map((c) => (/[A-Za-z0-9]/.test(c) ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`))
    .join("");
  const std = base64(bytes);
  const exact = [
    ...new Set([
      secret,
      json,
      jsonSlash,
      jsonUnicode,
      std,
      std.replace(/=+$/, ""),
      urlSafe(std),
      urlSafe(std).replace(/=+$/, ""),
    ]),
  ];
  const percent = [...new Set([encodeURIComponent(secret), new URLSearchParams({ k: secret }).toString().slice(2)])];
  // Base64 of the secret at each of the three alignments inside a longer text: the characters
  // that depend on the secret's bytes alone (the first and last group of each mix in neighbours).
  const cores: string[] = [];
  for (let shift = 0; shift < 3; shift++) {
    const padded = new Uint8Array(shift + bytes.length);
    padded.set(bytes, shift);
    const b = base64(padded).replace(/=+$/, "");
    const core = b.slice(shift ? 4 : 0, Math.max(0, b.length - 4));
    cores.push(core, urlSafe(core));
  }
  const grams = new Set<string>();
  for (const form of [...exact, ...percent, ...percent.map((p) => p.toLowerCase()), ...cores]) {
    for (let i = 0; i + RUN <= form.length; i++) grams.add(form.slice(i, i + RUN));
  }
  return { exact, percent, grams };
}

/** A base64 text that decodes to something holding the secret (a `Basic` credential of `user:key`) goes whole. */
function redactBase64Carriers(text: string, secret: string): string {
  return text.replace(B64_CHARS, (token) => {
    const decoded = decodeBase64(token);
    return decoded?.includes(secret.length >= RUN ? secret.slice(0, RUN) : secret) ? "[redacted]" : token;
  });
}

function decodeBase64(token: string): string | null {
  try {
    const std = token.replace(/-/g, "+").replace(/_/g, "/").replace(/=+$/, "");
    const bin = atob(std + "=".repeat((4 - (std.length % 4)) % 4));
    return new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
  } catch {
    return null;
  }
}

/** Every stretch of `text` made of runs found among `grams` (RUN characters each) is redacted. */
function redactRuns(text: string, grams: Set<string>): string {
  const hit = new Uint8Array(text.length);
  let any = false;
  for (let i = 0; i + RUN <= text.length; i++) {
    const w = text.slice(i, i + RUN);
    if (grams.has(w) || grams.has(w.toLowerCase())) {
      hit.fill(1, i, i + RUN);
      any = true;
    }
  }
  if (!any) return text;
  let out = "";
  for (let i = 0; i < text.length; ) {
    if (!hit[i]) {
      out += text[i++];
      continue;
    }
    while (i < text.length && hit[i]) i++;
    out += "[redacted]";
  }
  return out;
}

/**
 * Provider wording made safe to show (spec, errors rule 4): no credentials, signed URLs or
 * control characters, bounded length. The provider's words are kept otherwise.
 */
export function safeProviderMessage(text: string, secrets: (string | undefined)[] = [], max = 1000): string {
  let s = redactSecrets(text, secrets);
  s = s
    // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
    .replace(/[\u0000-\u001f\u007f]+/g, " ")
    .replace(/Bearer\s+\S+/gi, "Bearer [redacted]")
    .replace(/\bKey\s+[A-Za-z0-9:_-]{12,}/g, "Key [redacted]")
    .replace(/\b(sk|pk|rk|r8|key|token)[-_][A-Za-z0-9_-]{8,}/gi, "$1_[redacted]")
    .replace(
      /https?:\/\/[^\s"'<>]*[?&](?:sig|signature|token|key|x-amz-signature|x-goog-signature|se|sp|st|exp|expires)=[^\s"'<>]*/gi,
      "[redacted-url]",
    )
    .trim();
  return s.length > max ? `${s.slice(0, max - 3)}...` : s;
}

/** The message of an error as a provider reported it, made safe. */
export function providerMessage(e: unknown, secrets: (string | undefined)[] = []): string {
  return safeProviderMessage(e instanceof Error ? e.message : String(e), secrets);
}
