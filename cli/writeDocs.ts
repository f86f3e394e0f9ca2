/**
 * Rewrites the generated tables of the docs (docs.ts): the settings table of README.md, from the
 * declarations of engine.config.ts's extensions and the core, and the error table of
 * spec/extensions.md. Run with `npm run docs` after changing a setting or an error.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { SettingsSchema } from '../core/index.js'
import { loadConfig } from './context.js'
import { errorTable, ERRORS_MARKERS, replaceBetween, SETTINGS_MARKERS, settingsTable, type Markers } from './docs.js'

const rewrite = (relative: string, markers: Markers, table: string) => {
  // dist/cli/writeDocs.js → the repository root is two folders up.
  const file = fileURLToPath(new URL(`../../${relative}`, import.meta.url))
  writeFileSync(file, replaceBetween(readFileSync(file, 'utf8'), markers, table))
  process.stdout.write(`wrote the generated table of ${relative}\n`)
}

const { config } = await loadConfig(undefined)
rewrite('README.md', SETTINGS_MARKERS, settingsTable(new SettingsSchema(config.extensions ?? []).descriptors))
rewrite('spec/extensions.md', ERRORS_MARKERS, errorTable())
