#!/usr/bin/env node
// The hark command: the bundled CLI (dist/bundle/hark.js, the last step of `npm run build`, which
// npm ci runs through the prepare script) when it is there and not older than the compiled tree
// it is made from (dist/cli/main.js), else that tree. The bundle has its own copies of the engine's modules and of effect;
// modules of the operator's that import this package ('hark', 'hark/extension', effect, the
// compiled built-ins) get the compiled tree's, and the two do not mix (a setting declared with
// one copy's Schema is not one to the other). So a config module (--config or HARK_CONFIG not a
// .json file) or agent provider modules (agents.providerModules: flag, variable or in the .json
// config) run the compiled tree, as does HARK_UNBUNDLED=1 (tests that read its module graph).
import { existsSync, readFileSync, statSync } from 'node:fs'

const argv = process.argv.slice(2)
/** The value of `--name v` or `--name=v` (the last one), else undefined. */
const flag = (name) => {
  let value
  argv.forEach((a, i) => {
    if (a === `--${name}`) value = argv[i + 1]
    else if (a.startsWith(`--${name}=`)) value = a.slice(name.length + 3)
  })
  return value
}
const ownModules = () => {
  if (flag('agents-provider-modules') || process.env.HARK_AGENTS_PROVIDER_MODULES) return true
  const config = flag('config') ?? process.env.HARK_CONFIG
  if (!config) return false
  if (!config.endsWith('.json')) return true
  try {
    return readFileSync(config, 'utf8').includes('providerModules')
  } catch {
    return false // the engine says what is wrong with it
  }
}

const bundle = new URL('../dist/bundle/hark.js', import.meta.url)
const main = new URL('../dist/cli/main.js', import.meta.url)
/** Made from the compiled tree as it is: not older than its entry (a `tsc` alone leaves the bundle behind). */
const current = () => existsSync(bundle) && statSync(bundle).mtimeMs >= statSync(main).mtimeMs
const bundled = process.env.HARK_UNBUNDLED !== '1' && current() && !ownModules()
await import(bundled ? bundle.href : main.href)
