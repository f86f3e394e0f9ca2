/**
 * Rewrites the settings table of README.md from the settings declarations of engine.config.ts
 * (core and built-in extensions). Run with `npm run docs:settings` after changing a setting.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { SettingsSchema } from '../../core/index.js'
import { loadConfig, sectionsOf } from './context.js'
import { settingsTable, withSettingsTable } from './settingsTable.js'

// dist/plugins/cli/writeSettingsTable.js → the repository root is three folders up.
const file = fileURLToPath(new URL('../../../README.md', import.meta.url))
const { config } = await loadConfig(undefined)
const table = settingsTable(new SettingsSchema(sectionsOf(config)).descriptors)
writeFileSync(file, withSettingsTable(readFileSync(file, 'utf8'), table))
process.stdout.write(`wrote the settings table of ${file}\n`)
