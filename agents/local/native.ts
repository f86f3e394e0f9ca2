/**
 * The C libraries of the local agent, called in process through koffi (an FFI with prebuilt
 * binaries in its npm package; nothing is compiled): pocketsphinx 5prealpha (Debian 12's
 * libpocketsphinx3, with sphinxbase) for speech-to-text and flite 2.2 (libflite1) for
 * text-to-speech. Bound once per thread, at the first local agent: the engine's own thread never
 * loads them unless a local agent runs there (`isolate: false`).
 *
 * Why in process rather than a helper process (spec/agents.md, "local"): a 20 ms frame costs
 * pocketsphinx ≈ 0.3 ms with a command grammar, so the decoder follows speech frame by frame and
 * its hypothesis is ready < 1 ms after the last frame; flite synthesises a short sentence in
 * 30–45 ms in process against 140–240 ms for the `flite` program (it loads its voice each run).
 * Containment comes from the provider worker and from what reaches the libraries: grammars we
 * generate and check at preset save, PCM, and reply text reduced to printable ASCII.
 */
import koffi from 'koffi'

// A whole utterance decoded on the thread pool needs more than koffi's default 128 KiB of stack
// (its async stacks have no guard page). Only possible before the thread's first library load.
try {
  koffi.config({ ...koffi.config(), async_stack_size: 2 * 1024 * 1024 })
} catch {
  // another module of this thread loaded a library first: its setting stays
}

type Ptr = unknown

export interface PocketsphinxLib {
  /** A decoder: `-hmm`, `-dict` and other flags as pocketsphinx's command line has them. */
  init(args: ReadonlyArray<string>): Ptr | null
  free(ps: Ptr): void
  setJsgf(ps: Ptr, name: string, jsgf: string): boolean
  setLm(ps: Ptr, name: string, path: string): boolean
  setSearch(ps: Ptr, name: string): boolean
  startUtt(ps: Ptr): boolean
  processRaw(ps: Ptr, pcm: Int16Array): number
  /** The same, on libuv's thread pool (a long utterance decoded at once). */
  processRawAsync(ps: Ptr, pcm: Int16Array): Promise<number>
  endUtt(ps: Ptr): boolean
  hyp(ps: Ptr): string
}

export interface FliteLib {
  /** A voice (registered once per process by flite itself). */
  voice(library: string, name: string): Ptr
  /** Synthesise on libuv's thread pool: 16-bit mono PCM at the voice's rate. */
  synth(voice: Ptr, text: string): Promise<{ pcm: Int16Array; rate: number }>
}

/**
 * koffi hands an async call's result back through a handle that does not keep the event loop
 * alive: a loop with nothing else to wait for would end before the result arrives. A timer is
 * held while calls are out.
 */
let pendingCalls = 0
let keepAlive: NodeJS.Timeout | undefined
const outstanding = <T>(call: (done: (e: unknown, value: T) => void) => void): Promise<T> => {
  if (pendingCalls++ === 0) keepAlive = setInterval(() => {}, 60_000)
  return new Promise<T>((resolve, reject) =>
    call((e, value) => {
      if (--pendingCalls === 0) clearInterval(keepAlive)
      if (e) reject(e instanceof Error ? e : new Error(String(e)))
      else resolve(value)
    }),
  )
}

/**
 * Every library loaded, held for the life of the thread: koffi unloads (dlclose) a library whose
 * object is collected, and a voice's features live in its library's memory.
 */
const loaded: unknown[] = []

let sphinx: PocketsphinxLib | null = null
let flite: (FliteLib & { libs: Map<string, Ptr> }) | null = null

export const pocketsphinx = (library: string, sphinxbase: string): PocketsphinxLib => {
  if (sphinx) return sphinx
  const sb = koffi.load(sphinxbase)
  const ps = koffi.load(library)
  loaded.push(sb, ps)
  // Quiet: pocketsphinx logs every model load and utterance. Not through `-logfn /dev/null`: with
  // it, a decoder's second utterance after a flite synthesis crashed the process (seen here).
  sb.func('void err_set_logfp(void *fp)')(null)
  const psArgs = ps.func('void *ps_args()')
  const parse = sb.func('void *cmd_ln_parse_r(void *inout, void *defn, int argc, const char **argv, int strict)')
  const init = ps.func('void *ps_init(void *config)')
  const free = ps.func('int ps_free(void *ps)')
  const setJsgf = ps.func('int ps_set_jsgf_string(void *ps, const char *name, const char *jsgf)')
  const setLm = ps.func('int ps_set_lm_file(void *ps, const char *name, const char *path)')
  const setSearch = ps.func('int ps_set_search(void *ps, const char *name)')
  const startUtt = ps.func('int ps_start_utt(void *ps)')
  const processRaw = ps.func('int ps_process_raw(void *ps, const int16_t *data, size_t n, int no_search, int full_utt)')
  const endUtt = ps.func('int ps_end_utt(void *ps)')
  const getHyp = ps.func('const char *ps_get_hyp(void *ps, _Out_ int32_t *score)')
  const score = [0]
  sphinx = {
    init: (args) => {
      const argv = [...args]
      const config = parse(null, psArgs(), argv.length, argv, 1)
      if (!config) return null
      // The decoder owns the config from here (ps_init's contract): never free it ourselves.
      return init(config) ?? null
    },
    free: (d) => void free(d),
    setJsgf: (d, name, jsgf) => setJsgf(d, name, jsgf) === 0,
    setLm: (d, name, path) => setLm(d, name, path) === 0,
    setSearch: (d, name) => setSearch(d, name) === 0,
    startUtt: (d) => startUtt(d) === 0,
    processRaw: (d, pcm) => processRaw(d, pcm, pcm.length, 0, 0) as number,
    processRawAsync: (d, pcm) => outstanding<number>((done) => processRaw.async(d, pcm, pcm.length, 0, 1, done)),
    endUtt: (d) => endUtt(d) === 0,
    hyp: (d) => (getHyp(d, score) as string | null) ?? '',
  }
  return sphinx
}

export const fliteLib = (library: string): FliteLib => {
  if (flite) return flite
  const lib = koffi.load(library)
  loaded.push(lib)
  lib.func('int flite_init()')()
  const Wave = koffi.struct('hark_cst_wave', {
    type: 'const char *',
    sample_rate: 'int',
    num_samples: 'int',
    num_channels: 'int',
    samples: 'int16_t *',
  })
  const toWave = lib.func('hark_cst_wave *flite_text_to_wave(const char *text, void *voice)')
  const deleteWave = lib.func('void delete_wave(hark_cst_wave *w)')
  const libs = new Map<string, Ptr>()
  const state = {
    libs,
    voice: (path: string, name: string) => {
      let v = libs.get(name)
      if (v === undefined) {
        const voiceLib = koffi.load(path)
        loaded.push(voiceLib)
        v = voiceLib.func(`void *register_cmu_us_${name}(const char *voxdir)`)(null)
        libs.set(name, v)
      }
      return v
    },
    synth: async (voice: Ptr, text: string) => {
      const wave = await outstanding<Ptr>((done) => toWave.async(text, voice, done))
      if (!wave) throw new Error('flite synthesised nothing')
      try {
        const w = koffi.decode(wave, Wave) as { sample_rate: number; num_samples: number; samples: Ptr }
        const pcm = w.num_samples > 0 ? new Int16Array(koffi.decode(w.samples, 'int16_t', w.num_samples) as number[]) : new Int16Array(0)
        return { pcm, rate: w.sample_rate }
      } finally {
        deleteWave(wave)
      }
    },
  }
  flite = state
  return flite
}
