/**
 * The error of a setting that cannot be used. Its own module (config.ts re-exports it) so that
 * what reads a setting's file or value (TLS, the master key) can raise it without importing the
 * settings schema.
 */
import * as Data from 'effect/Data'

/** A setting that failed validation: one line naming it, its source and what was wrong. */
export class ConfigError extends Data.TaggedError('ConfigError')<{
  readonly setting: string
  readonly source: string
  readonly reason: string
  readonly message: string
}> {
  constructor(setting: string, source: string, reason: string) {
    super({ setting, source, reason, message: `invalid setting ${setting} (from ${source}): ${reason}` })
  }
}
