/**
 * Keeping provider secrets out of what the engine says: a provider lists its secret values (API
 * keys, endpoint URLs and hosts) and every failure reason or error text the agent runtime shows
 * or logs is scrubbed of them first — the exact values, and the masked forms services print of a
 * key they refuse (`sk-abc…wxyz`, `sk-abc****wxyz`): a run of `*`, `•`, `…` or `...` with the
 * key's first or last four characters beside it.
 */

export const REDACTED = '[redacted]'

/** Keys shorter than this are not looked for in masked form (a host name is not a key). */
const MASKABLE_MIN_LENGTH = 12

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** A token holding a mask run, that starts with the key's first four or ends with its last four characters. */
const maskedForm = (secret: string): RegExp => {
  const mask = String.raw`(?:\*+|•+|…+|\.{3,})`
  const word = String.raw`[A-Za-z0-9_\-]*`
  const head = escape(secret.slice(0, 4))
  const tail = escape(secret.slice(-4))
  return new RegExp(`${head}${word}${mask}${word}|${word}${mask}${word}${tail}`, 'g')
}

/** `text` with every occurrence of each secret (3+ characters), and of a key's masked forms, replaced. */
export const scrubSecrets = (text: string, secrets: ReadonlyArray<string>): string => {
  let out = text
  // Longest first, so a URL is replaced whole before its host is.
  const sorted = [...secrets].filter((s) => s.length >= 3).sort((a, b) => b.length - a.length)
  for (const secret of sorted) out = out.split(secret).join(REDACTED)
  for (const secret of sorted) {
    if (secret.length >= MASKABLE_MIN_LENGTH && !/[/:.]/.test(secret)) out = out.replace(maskedForm(secret), REDACTED)
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
