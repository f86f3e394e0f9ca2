/**
 * Where things are: the repository root (found from this module, compiled or not), the `hark`
 * launcher, compiled bench modules to start as processes, and the results folder.
 */
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))

/** The nearest folder above this module holding package.json (the repo root, from src or dist). */
export const repoRoot = (() => {
  let dir = here
  for (let i = 0; i < 8; i++) {
    if (existsSync(join(dir, 'package.json'))) return dir
    dir = dirname(dir)
  }
  throw new Error(`no package.json above ${here}`)
})()

/** The `hark` launcher (runs the compiled CLI in dist/). */
export const harkBin = join(repoRoot, 'bin', 'hark.js')

/** Compiled module of the bench, e.g. benchModule('generators/roomWorker') → dist/bench/generators/roomWorker.js. */
export const benchModule = (relative: string): string => {
  const file = join(repoRoot, 'dist', 'bench', `${relative}.js`)
  if (!existsSync(file)) throw new Error(`${file} is missing: run npm run build first`)
  return file
}

export const resultsRoot = join(repoRoot, 'bench', 'results')
