/**
 * `hark settings [--markdown]`: every setting of the engine this config runs (the core's, its
 * extensions' and its provider modules'), with its default, environment variable, flag and doc; `--json` for one JSON array.
 */
import type { Command } from 'commander'
import { loadConfig, output, settingsSchemaFor, withCommon, type CommonOptions } from '../context.js'
import { settingsTable } from '../docs.js'

export const settingsCommand = (program: Command) => {
  withCommon(program.command('settings'))
    .description("every setting (the core's and the extensions'): default, environment variable, flag")
    .option('--markdown', 'the settings table of README.md')
    .action(async (opts: CommonOptions & { markdown?: boolean }) => {
      const { source, config } = await loadConfig(opts.config)
      const descriptors = (await settingsSchemaFor(config, source)).descriptors
      if (opts.markdown && !opts.json) {
        process.stdout.write(settingsTable(descriptors) + '\n')
        return
      }
      output(opts, descriptors, () =>
        descriptors.map((d) => `${d.path}\t${JSON.stringify(d.defaultValue)}\t${d.env}\t--${d.flag}\t${d.doc}`).join('\n'),
      )
    })
}
