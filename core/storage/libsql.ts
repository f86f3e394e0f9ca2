/**
 * The libSQL package, loaded once, here. Its native library prints its Rust log (a line for every
 * failed connection to a libSQL server, say) on stdout, where the CLI's --json answer goes, and
 * reads RUST_LOG only when it loads: unless the operator set RUST_LOG, it is turned off first.
 * Hark reports what matters through its own log (the primary going and coming back).
 */
import { createRequire } from 'node:module'

process.env.RUST_LOG ??= 'off'
const require = createRequire(import.meta.url)

export const Database = require('libsql') as typeof import('libsql')
/** The promise flavour: its sync() runs off the event loop (replica.ts uses it on the same handle). */
export const AsyncDatabase = require('libsql/promise') as typeof import('libsql/promise')
export type Native = InstanceType<typeof Database>
