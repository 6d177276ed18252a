/**
 * Provider wording made safe to show (spec, errors rule 4): no credentials, signed URLs or
 * control characters, bounded length. The provider's words are kept otherwise.
 */
export function safeProviderMessage(text: string, secrets: (string | undefined)[] = [], max = 1000): string {
  let s = text;
  for (const secret of secrets) if (secret && secret.length >= 4) s = s.split(secret).join("[redacted]");
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
