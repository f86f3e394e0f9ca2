import { describe, expect, it } from 'vitest'
import { loadDictionary } from './dictionary.js'
import { findEngines } from './engines.js'
import { compileCommands, type Intent } from './grammar.js'
import { kitchenAssistant, kitchenPhrases } from './kitchen.js'
import { Recognizer } from './recognizer.js'
import { Voice } from './voice.js'

const engines = findEngines({ modelDir: '/usr/share/pocketsphinx/model/en-us', libraryDirs: [] })
const dict = () => loadDictionary(engines.model!.dictionary)
const intents = kitchenAssistant.intents as unknown as Intent[]

const recognise = (r: Recognizer, pcm: Int16Array): string => {
  r.begin()
  for (let at = 0; at < pcm.length; at += 320) r.feed(pcm.subarray(at, at + 320))
  return r.finish()
}

describe('local speech: flite speaks, pocketsphinx hears (no fake)', () => {
  it("flite's 16 kHz voices: ≥ 85 % of the kitchen phrases recognised as their intent; an unknown phrase matches none", async () => {
    const commands = compileCommands(intents, dict())
    const r = Recognizer.grammar(engines, dict(), commands.words, {}, commands.jsgf)
    const misses: string[] = []
    // kal (8 kHz) is left out: the US English model wants 16 kHz speech (bench local-agent reports it).
    for (const voiceName of ['slt', 'kal16', 'awb', 'rms'] as const) {
      const voice = Voice.open(engines, voiceName)
      for (const p of kitchenPhrases) {
        const heard = recognise(r, await voice.say(p.say))
        if (commands.match(heard)?.intent.name !== p.intent) misses.push(`${voiceName}: "${p.say}" → "${heard}"`)
      }
      const unknown = recognise(r, await voice.say('what will the weather be like tomorrow'))
      if (commands.match(unknown) !== null) misses.push(`${voiceName}: the weather question → "${unknown}" matched`)
      voice.close()
    }
    r.close()
    // 2026-12-02: 3 misses of 28 (slt "how cold is it", kal16 "start a ten minute timer", awb "turn off the bedroom light").
    expect(misses.filter((m) => m.includes('matched'))).toEqual([])
    expect(misses.length).toBeLessThanOrEqual(4)
  })
})
