/**
 * Which local speech engines this machine has: pocketsphinx (its library, sphinxbase's, and the
 * US English model with its dictionary) and flite (its library and each voice's). Found by
 * looking for the files Debian's packages install — nothing is loaded — so `hark start` can say
 * what it found and a `local` agent can refuse to start with the package to install.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'

/** flite's voices, as Debian's libflite1 ships them, and the rate each speaks at. */
export const FLITE_VOICES = { slt: 16_000, kal16: 16_000, awb: 16_000, rms: 16_000, kal: 8_000 } as const
export type FliteVoice = keyof typeof FLITE_VOICES

export interface EngineSettings {
  /** Directories searched for the shared libraries; empty: the system's usual ones. */
  readonly libraryDirs: ReadonlyArray<string>
  /** pocketsphinx's model directory (holds `en-us/`, `cmudict-en-us.dict`, `en-us.lm.bin`). */
  readonly modelDir: string
}

export interface LocalEngines {
  readonly pocketsphinx: { readonly library: string; readonly sphinxbase: string } | null
  readonly model: { readonly acoustic: string; readonly dictionary: string; readonly languageModel: string } | null
  readonly flite: { readonly library: string; readonly voices: Readonly<Partial<Record<FliteVoice, string>>> } | null
  /** What is missing, each as the Debian package that brings it. */
  readonly missing: ReadonlyArray<{ readonly what: string; readonly pkg: string }>
}

const SYSTEM_DIRS = [
  '/usr/lib/x86_64-linux-gnu',
  '/usr/lib/aarch64-linux-gnu',
  '/usr/lib/arm-linux-gnueabihf',
  '/usr/lib64',
  '/usr/lib',
  '/usr/local/lib',
]

const find = (dirs: ReadonlyArray<string>, file: string): string | null => {
  for (const dir of dirs) {
    const path = join(dir, file)
    if (existsSync(path)) return path
  }
  return null
}

/** Look for the engines (a few stat calls). */
export const findEngines = (s: EngineSettings): LocalEngines => {
  const dirs = s.libraryDirs.length > 0 ? s.libraryDirs : SYSTEM_DIRS
  const missing: Array<{ what: string; pkg: string }> = []
  const library = find(dirs, 'libpocketsphinx.so.3')
  const sphinxbase = find(dirs, 'libsphinxbase.so.3')
  if (!library) missing.push({ what: 'libpocketsphinx.so.3', pkg: 'libpocketsphinx3' })
  if (!sphinxbase) missing.push({ what: 'libsphinxbase.so.3', pkg: 'libsphinxbase3' })
  const acoustic = join(s.modelDir, 'en-us')
  const dictionary = join(s.modelDir, 'cmudict-en-us.dict')
  const languageModel = join(s.modelDir, 'en-us.lm.bin')
  const modelFound = existsSync(join(acoustic, 'mdef')) && existsSync(dictionary) && existsSync(languageModel)
  if (!modelFound) missing.push({ what: `the US English model in ${s.modelDir}`, pkg: 'pocketsphinx-en-us' })
  const flite = find(dirs, 'libflite.so.1')
  const voices: Partial<Record<FliteVoice, string>> = {}
  for (const voice of Object.keys(FLITE_VOICES) as FliteVoice[]) {
    const path = find(dirs, `libflite_cmu_us_${voice}.so.1`)
    if (path) voices[voice] = path
  }
  if (!flite || Object.keys(voices).length === 0) missing.push({ what: 'libflite.so.1 and its voices', pkg: 'libflite1' })
  return {
    pocketsphinx: library && sphinxbase ? { library, sphinxbase } : null,
    model: modelFound ? { acoustic, dictionary, languageModel } : null,
    flite: flite && Object.keys(voices).length > 0 ? { library: flite, voices } : null,
    missing,
  }
}

/** One line for `hark start`: what was found, or what to install. */
export const describeEngines = (e: LocalEngines): { ready: boolean; summary: string } => {
  if (e.missing.length > 0) {
    const pkgs = [...new Set(e.missing.map((m) => m.pkg))]
    return {
      ready: false,
      summary: `missing ${e.missing.map((m) => m.what).join(', ')} (sudo apt-get install ${pkgs.join(' ')}); local agents cannot start`,
    }
  }
  return { ready: true, summary: `pocketsphinx (US English model), flite voices ${Object.keys(e.flite!.voices).join(', ')}` }
}

/** Why a local agent cannot start here, or null. */
export const missingReason = (e: LocalEngines, voice: FliteVoice): string | null => {
  if (e.missing.length > 0) return `local speech engines missing: ${describeEngines(e).summary.replace(/; local agents cannot start$/, '')}`
  if (!e.flite!.voices[voice]) return `flite voice ${voice} is missing (libflite1 installs it)`
  return null
}
