/**
 * Structured logging with pino. Secrets never reach a log line: the known secret-bearing
 * fields are redacted wherever they appear, and callers log ids, never credentials.
 *
 * Lines go to stderr, written synchronously so they keep their order with the CLI's own stderr
 * lines (a fatal start error is the last line, not followed by buffered ones). Two formats:
 * JSON (one object a line, for machines) and pretty (`[12:00:00.000] INFO: listening port=8080`,
 * for a person at a terminal); `auto` picks pretty when stderr is a terminal.
 */
import { createRequire } from 'node:module'
import { isatty } from 'node:tty'
// Effect's modules one by one, not the 'effect' barrel (which loads all of them): this module runs in provider workers too (core/provider.ts).
import * as Context from 'effect/Context'
import * as Layer from 'effect/Layer'
import { pino, type Logger, type LevelWithSilent, type DestinationStream } from 'pino'
import type PinoPretty from 'pino-pretty'

export type { Logger }

export type LogFormat = 'auto' | 'pretty' | 'json'

/** Field names whose values are never written, at any depth we log. */
export const redactedFields = [
  'token', 'apiKey', 'password', 'secret', 'masterKey', 'authorization', 'sdp', 'authToken',
  'cookie', 'csrfToken', 'currentPassword', 'newPassword',
] as const

/** Each field at the top and up to four levels down (the settings object nests three deep). */
const redactPaths = redactedFields.flatMap((f) => [0, 1, 2, 3, 4].map((depth) => `${'*.'.repeat(depth)}${f}`))

/** `auto` means pretty when the log's stream is a terminal. */
export const chooseLogFormat = (format: LogFormat, isTerminal: boolean): 'pretty' | 'json' =>
  format === 'auto' ? (isTerminal ? 'pretty' : 'json') : format

/** A value as it reads after `key=`: bare when it is one plain word, else JSON. */
const showValue = (value: unknown): string =>
  typeof value === 'string' && /^[^\s"'=]+$/.test(value) ? value : (JSON.stringify(value) ?? String(value))

/** The message, then every field as key=value; an error's stack follows on indented lines. */
const messageWithFields = (log: Record<string, unknown>, messageKey: string): string => {
  const { [messageKey]: message, level: _l, time: _t, pid: _p, name: _n, hostname: _h, err, ...fields } = log
  const parts = [String(message ?? '')]
  for (const [key, value] of Object.entries(fields)) parts.push(`${key}=${showValue(value)}`)
  if (err !== undefined && err !== null && typeof err === 'object') {
    const { message: errMessage, stack } = err as { message?: unknown; stack?: unknown }
    parts.push(`err=${showValue(errMessage ?? err)}`)
    if (typeof stack === 'string') {
      const frames = stack.split('\n').slice(1).map((l) => `    ${l.trim()}`)
      if (frames.length > 0) return `${parts.join(' ')}\n${frames.join('\n')}`
    }
  } else if (err !== undefined) {
    parts.push(`err=${showValue(err)}`)
  }
  return parts.join(' ')
}

const require = createRequire(import.meta.url)

/**
 * A pino destination that writes each JSON line as a readable line. pino-pretty formats (level
 * labels, local time, colours); it is loaded only when a pretty logger is made, and used as a
 * function, not as a stream or worker transport, so writes stay synchronous and in order.
 */
const prettyDestination = (out: DestinationStream, colorize: boolean): DestinationStream => {
  const { prettyFactory } = require('pino-pretty') as typeof PinoPretty
  const pretty = prettyFactory({
    colorize,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,name',
    hideObject: true,
    messageFormat: messageWithFields,
  })
  return { write: (line: string) => out.write(pretty(line)) }
}

/**
 * The engine's logger. Without `destination` it writes to stderr (fd 2), and `auto` looks at
 * whether stderr is a terminal; with one, `auto` means JSON unless the stream says it is a TTY.
 */
export const createLogger = (level: LevelWithSilent, destination?: DestinationStream, format: LogFormat = 'json'): Logger => {
  const out = destination ?? pino.destination({ fd: 2, sync: true })
  const isTerminal = destination ? (destination as { isTTY?: boolean }).isTTY === true : isatty(2)
  const chosen = chooseLogFormat(format, isTerminal)
  return pino(
    {
      name: 'hark',
      level,
      redact: { paths: redactPaths, censor: '[redacted]' },
      base: { pid: process.pid },
    },
    chosen === 'pretty' ? prettyDestination(out, isTerminal && process.env.NO_COLOR === undefined) : out,
  )
}

export class Log extends Context.Service<Log, Logger>()('hark/Log') {}

export const logLayer = (logger: Logger) => Layer.succeed(Log, logger)
