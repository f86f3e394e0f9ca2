/**
 * The error of a setting that cannot be used. Its own module (config.ts re-exports it) so that
 * what reads a setting's file or value (TLS, the master key) can raise it without importing the
 * settings schema.
 */

/** A setting that failed validation: one line naming it, its source and what was wrong. */
export class ConfigError extends Error {
  readonly _tag = 'ConfigError'
  constructor(
    readonly setting: string,
    readonly source: string,
    readonly reason: string,
  ) {
    super(`invalid setting ${setting} (from ${source}): ${reason}`)
  }
}
