/**
 * Speech-to-text for one local agent: a pocketsphinx decoder of its own, loaded with the acoustic
 * model and only the words it needs, searching the preset's command grammar (`commands`), or the
 * general US English language model with the whole dictionary (`chat`). A command decoder follows
 * the utterance window by window as the VAD passes it (≈ 0.3 ms of CPU per 20 ms), so the words
 * are there as soon as the utterance ends; the language model decodes a whole utterance at once
 * on libuv's thread pool, off the provider worker's event loop.
 */
import { unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { dictionaryText, type Pronunciations } from './dictionary.js'
import type { LocalEngines } from './engines.js'
import { pocketsphinx, type PocketsphinxLib } from './native.js'

let files = 0

export class Recognizer {
  private inUtterance = false
  private closed = false
  /** A decode running on the thread pool: the decoder is freed only after it. */
  private busy: Promise<unknown> | null = null

  private constructor(
    private readonly lib: PocketsphinxLib,
    private readonly decoder: unknown,
  ) {}

  /** A decoder for `jsgf` over `words` (their pronunciations from `dict`, or `extra`). */
  static grammar(engines: LocalEngines, dict: Pronunciations, words: Iterable<string>, extra: Readonly<Record<string, string>>, jsgf: string): Recognizer {
    const lib = pocketsphinx(engines.pocketsphinx!.library, engines.pocketsphinx!.sphinxbase)
    const path = join(tmpdir(), `hark-local-${process.pid}-${++files}.dict`)
    writeFileSync(path, dictionaryText(words, dict, extra))
    let decoder: unknown
    try {
      decoder = lib.init(['-hmm', engines.model!.acoustic, '-dict', path])
    } finally {
      unlinkSync(path)
    }
    if (!decoder) throw new Error('pocketsphinx could not load its model')
    const r = new Recognizer(lib, decoder)
    if (!lib.setJsgf(decoder, 'commands', jsgf) || !lib.setSearch(decoder, 'commands')) {
      r.close()
      throw new Error('pocketsphinx refused the command grammar')
    }
    return r
  }

  /** A decoder of the general language model (the whole dictionary: ≈ 28 MB, loaded in 0.3–0.5 s). */
  static languageModel(engines: LocalEngines): Recognizer {
    const lib = pocketsphinx(engines.pocketsphinx!.library, engines.pocketsphinx!.sphinxbase)
    const m = engines.model!
    const decoder = lib.init(['-hmm', m.acoustic, '-dict', m.dictionary, '-lm', m.languageModel])
    if (!decoder) throw new Error('pocketsphinx could not load its language model')
    return new Recognizer(lib, decoder)
  }

  /** Begin an utterance (ends one left open). */
  begin(): void {
    if (this.closed) return
    if (this.inUtterance) this.lib.endUtt(this.decoder)
    this.inUtterance = this.lib.startUtt(this.decoder)
  }

  /** The next piece of the utterance. */
  feed(pcm: Int16Array): void {
    if (this.inUtterance) this.lib.processRaw(this.decoder, pcm)
  }

  /** End the utterance: the words heard (empty when nothing). */
  finish(): string {
    if (!this.inUtterance) return ''
    this.inUtterance = false
    this.lib.endUtt(this.decoder)
    return this.lib.hyp(this.decoder).trim()
  }

  /** Decode a whole utterance off the event loop (the language model). */
  async decode(pcm: Int16Array): Promise<string> {
    if (this.closed || this.inUtterance) return ''
    this.inUtterance = this.lib.startUtt(this.decoder)
    const running = (this.busy = this.lib.processRawAsync(this.decoder, pcm))
    try {
      await running
    } finally {
      this.busy = null
    }
    if (this.closed) {
      this.release()
      return ''
    }
    return this.finish()
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    if (!this.busy) this.release()
  }

  private release(): void {
    if (this.inUtterance) this.lib.endUtt(this.decoder)
    this.inUtterance = false
    this.lib.free(this.decoder)
  }
}
