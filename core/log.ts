/**
 * Structured logging with pino. Secrets never reach a log line: the known secret-bearing
 * fields are redacted wherever they appear, and callers log ids, never credentials.
 */
import { Context, Layer } from 'effect'
import { pino, type Logger, type LevelWithSilent, type DestinationStream } from 'pino'

export type { Logger }

/** Field names whose values are never written, at any depth we log. */
export const redactedFields = [
  'token', 'apiKey', 'password', 'secret', 'masterKey', 'authorization', 'sdp',
] as const

/** Each field at the top and up to four levels down (the settings object nests three deep). */
const redactPaths = redactedFields.flatMap((f) => [0, 1, 2, 3, 4].map((depth) => `${'*.'.repeat(depth)}${f}`))

export const createLogger = (level: LevelWithSilent, destination?: DestinationStream): Logger =>
  pino(
    {
      name: 'hark',
      level,
      redact: { paths: redactPaths, censor: '[redacted]' },
      base: { pid: process.pid },
    },
    destination ?? pino.destination({ fd: 2, sync: false }),
  )

export class Log extends Context.Service<Log, Logger>()('hark/Log') {}

export const logLayer = (logger: Logger) => Layer.succeed(Log, logger)
