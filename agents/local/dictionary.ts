/**
 * pocketsphinx's pronunciation dictionary (CMUdict, ≈ 135 000 words), read once per thread when
 * first needed: to check the words of a preset's grammar when it is saved, and to write each
 * decoder the few entries it needs (a decoder with the whole dictionary takes ≈ 28 MB and
 * 250–500 ms to load; with a command grammar's words, ≈ 6 MB and 50 ms).
 */
import { readFileSync } from 'node:fs'

export type Pronunciations = ReadonlyMap<string, ReadonlyArray<string>>

const cache = new Map<string, Pronunciations>()

/** Word → its pronunciations (phones separated by spaces), from a CMUdict-format file. */
export const loadDictionary = (path: string): Pronunciations => {
  let dict = cache.get(path)
  if (dict) return dict
  const map = new Map<string, string[]>()
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const space = line.indexOf(' ')
    if (space <= 0) continue
    const word = line.slice(0, space).replace(/\(\d+\)$/, '')
    const phones = line.slice(space + 1).trim()
    if (!phones) continue
    const list = map.get(word)
    if (list) list.push(phones)
    else map.set(word, [phones])
  }
  dict = map
  cache.set(path, dict)
  return dict
}

/** The dictionary file of a decoder: `words` with their pronunciations (extra ones win). */
export const dictionaryText = (words: Iterable<string>, dict: Pronunciations, extra: Readonly<Record<string, string>>): string => {
  const lines: string[] = []
  for (const word of new Set(words)) {
    const own = extra[word]
    const phones = own ? [own] : (dict.get(word) ?? [])
    phones.forEach((p, i) => lines.push(`${i === 0 ? word : `${word}(${i + 1})`} ${p}`))
  }
  return lines.join('\n') + '\n'
}
