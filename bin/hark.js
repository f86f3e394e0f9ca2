#!/usr/bin/env node
// The hark command: the bundled CLI (dist/bundle/hark.js, the last step of `npm run build`, which
// npm ci runs through the prepare script) when it is there, else the compiled tree it is made
// from (dist/cli/main.js). HARK_UNBUNDLED=1 runs the compiled tree (tests that read its module graph).
import { existsSync } from 'node:fs'

const bundle = new URL('../dist/bundle/hark.js', import.meta.url)
await import(process.env.HARK_UNBUNDLED !== '1' && existsSync(bundle) ? bundle.href : '../dist/cli/main.js')
