import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { loadDictionary } from './dictionary.js'
import { findEngines } from './engines.js'
import { checkIntents, compileCommands, GrammarError, type Intent } from './grammar.js'
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
  it('every kitchen phrase in every flite voice is recognised as its intent; an unknown phrase matches none', async () => {
    const commands = compileCommands(intents, dict())
    const r = Recognizer.grammar(engines, dict(), commands.words, {}, commands.jsgf)
    const misses: string[] = []
    for (const voiceName of ['slt', 'kal16', 'awb', 'rms', 'kal'] as const) {
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
    expect(misses).toEqual([])
  })
})
