/**
 * Keeping provider secrets out of what the engine says: a provider lists its secret values (API
 * keys, endpoint URLs and hosts) and every failure reason or error text the agent runtime shows
 * or logs is scrubbed of them first.
 */

export const REDACTED = '[redacted]'

/** `text` with every occurrence of each secret (3+ characters) replaced. */
export const scrubSecrets = (text: string, secrets: ReadonlyArray<string>): string => {
  let out = text
  // Longest first, so a URL is replaced whole before its host is.
  for (const secret of [...secrets].filter((s) => s.length >= 3).sort((a, b) => b.length - a.length)) {
    out = out.split(secret).join(REDACTED)
  }
  return out
}

/** The text of an error (message and stack) for a log line, scrubbed. */
export const scrubbedError = (error: unknown, secrets: ReadonlyArray<string>): { message: string; stack?: string } => {
  if (error instanceof Error) {
    return {
      message: scrubSecrets(error.message, secrets),
      ...(error.stack ? { stack: scrubSecrets(error.stack, secrets) } : {}),
    }
  }
  return { message: scrubSecrets(String(error), secrets) }
}
