/**
 * A `local` preset's commands: intents whose phrases are written in a small JSGF-like syntax —
 * words, `{slot}`, `[optional words]`, `(one | other)` — compiled into one JSGF grammar for
 * pocketsphinx, plus a loop over a small open vocabulary that catches what is not a command (so
 * "what is the weather" is heard as itself, not forced onto the nearest command). The same
 * phrases match the recognised words back to an intent and its slot values.
 *
 * Checked when a preset is saved (`checkIntents`): a phrase that does not parse, a slot that is
 * not declared, a word pocketsphinx's dictionary lacks (give its phones in `words`) — each refused
 * with where it is: `intents[1].phrases[0] "turn {state the light": "{" not closed (column 6)`.
 */
import { dictionaryText, type Pronunciations } from './dictionary.js'

export type SlotValues = ReadonlyArray<string> | Readonly<Record<string, unknown>>

export interface Intent {
  readonly name: string
  readonly phrases: ReadonlyArray<string>
  readonly slots?: Readonly<Record<string, SlotValues>>
  readonly tool?: { readonly name: string; readonly client?: string; readonly arguments?: Readonly<Record<string, unknown>> }
  readonly reply: string
}

type Node =
  | { readonly k: 'word'; readonly w: string }
  | { readonly k: 'slot'; readonly name: string }
  | { readonly k: 'opt'; readonly alt: Node[][] }
  | { readonly k: 'group'; readonly alt: Node[][] }

export class GrammarError extends Error {
  override readonly name = 'GrammarError'
}

const WORD = /^[a-z][a-z']*$/
const SLOT_NAME = /^[a-z_][a-z0-9_]*$/

/** Parse one phrase; throws a plain message with the column. */
export const parsePhrase = (phrase: string): Node[][] => {
  const text = phrase.toLowerCase()
  let at = 0
  const fail = (what: string, column = at): never => {
    throw new Error(`${what} (column ${column + 1})`)
  }
  const skip = () => {
    while (at < text.length && text[at] === ' ') at++
  }
  const alt = (close: string | null, openedAt: number): Node[][] => {
    const seqs: Node[][] = [[]]
    for (;;) {
      skip()
      if (at >= text.length) {
        if (close) fail(`"${close === ']' ? '[' : '('}" not closed`, openedAt)
        break
      }
      const c = text[at]!
      if (c === close) {
        at++
        break
      }
      if (c === ']' || c === ')' || c === '}') fail(`"${c}" without its opening`)
      if (c === '|') {
        at++
        seqs.push([])
        continue
      }
      const seq = seqs[seqs.length - 1]!
      if (c === '[' || c === '(') {
        const start = at++
        const inner = alt(c === '[' ? ']' : ')', start)
        if (inner.every((s) => s.length === 0)) fail(`empty "${c}…"`, start)
        seq.push(c === '[' ? { k: 'opt', alt: inner } : { k: 'group', alt: inner })
        continue
      }
      if (c === '{') {
        const start = at
        const end = text.indexOf('}', at)
        const nextOpen = text.indexOf('{', at + 1)
        if (end < 0 || (nextOpen >= 0 && nextOpen < end)) fail('"{" not closed', start)
        const name = text.slice(at + 1, end).trim()
        if (!SLOT_NAME.test(name)) fail(`"${name}" is not a slot name (letters, digits, _)`, start)
        seq.push({ k: 'slot', name })
        at = end + 1
        continue
      }
      const start = at
      while (at < text.length && !' []()|{}'.includes(text[at]!)) at++
      const w = text.slice(start, at)
      if (!WORD.test(w)) fail(`"${w}" is not a word (letters and ' only; spell numbers out)`, start)
      seq.push({ k: 'word', w })
    }
    if (seqs.some((s) => s.length === 0) && seqs.length > 1) fail('an empty alternative')
    return seqs
  }
  const parsed = alt(null, 0)
  if (parsed.length === 1 && parsed[0]!.length === 0) fail('an empty phrase', 0)
  return parsed
}

const slotPhrases = (values: SlotValues): string[] => (Array.isArray(values) ? [...values] : Object.keys(values))
const slotValue = (values: SlotValues, spoken: string): unknown => (Array.isArray(values) ? spoken : (values as Record<string, unknown>)[spoken])

const wordsOf = (nodes: Node[][], out: Set<string>, slots: string[]): void => {
  for (const seq of nodes)
    for (const n of seq) {
      if (n.k === 'word') out.add(n.w)
      else if (n.k === 'slot') slots.push(n.name)
      else wordsOf(n.alt, out, slots)
    }
}

export interface CompiledCommands {
  readonly jsgf: string
  /** Every word a decoder must know. */
  readonly words: ReadonlyArray<string>
  match(text: string): { intent: Intent; slots: Record<string, { spoken: string; value: unknown }> } | null
}

/**
 * Check `intents` against the dictionary (plus `extraWords`); throws a GrammarError naming the
 * first problem and where it is. Returns the words they use.
 */
export const checkIntents = (intents: ReadonlyArray<Intent>, dict: Pronunciations, extraWords: Readonly<Record<string, string>> = {}): Set<string> => {
  const words = new Set<string>()
  const names = new Set<string>()
  intents.forEach((intent, i) => {
    const where = `intents[${i}] ${JSON.stringify(intent.name)}`
    if (names.has(intent.name)) throw new GrammarError(`${where}: a second intent with this name`)
    names.add(intent.name)
    const known = (w: string) => extraWords[w] !== undefined || dict.has(w)
    const declared = intent.slots ?? {}
    for (const [slot, values] of Object.entries(declared)) {
      if (!SLOT_NAME.test(slot)) throw new GrammarError(`${where}: slots.${slot} is not a slot name (letters, digits, _)`)
      const phrases = slotPhrases(values)
      if (phrases.length === 0) throw new GrammarError(`${where}: slots.${slot} has no values`)
      for (const p of phrases) {
        for (const w of p.toLowerCase().split(/\s+/).filter((x) => x)) {
          if (!WORD.test(w)) throw new GrammarError(`${where}: slots.${slot} value ${JSON.stringify(p)}: "${w}" is not a word (letters and ' only; spell numbers out)`)
          if (!known(w)) throw new GrammarError(`${where}: slots.${slot} value ${JSON.stringify(p)}: "${w}" is not in pocketsphinx's dictionary (give its phones in words)`)
          words.add(w)
        }
      }
    }
    intent.phrases.forEach((phrase, j) => {
      const at = `${where} phrases[${j}] ${JSON.stringify(phrase)}`
      let nodes: Node[][]
      try {
        nodes = parsePhrase(phrase)
      } catch (e) {
        throw new GrammarError(`${at}: ${(e as Error).message}`)
      }
      const own = new Set<string>()
      const slots: string[] = []
      wordsOf(nodes, own, slots)
      for (const s of slots) if (!(s in declared)) throw new GrammarError(`${at}: slot {${s}} is not declared in slots`)
      for (const w of own) {
        if (!known(w)) throw new GrammarError(`${at}: "${w}" is not in pocketsphinx's dictionary (give its phones in words)`)
        words.add(w)
      }
    })
    for (const m of intent.reply.matchAll(/\{([^}]*)\}/g)) {
      const name = m[1]!
      if (name !== 'result' && !(name in declared)) throw new GrammarError(`${where}: reply uses {${name}}, which is neither a slot nor {result}`)
    }
  })
  return words
}

/**
 * The open-vocabulary loop: a hundred of the most common English words. What is not a command is
 * heard as a string of these, not forced onto the nearest command. Measured with flite's voices
 * (slt, kal16, rms): 19 of 21 command phrases recognised and 15 of 15 other sentences refused,
 * at ≈ 0.1 of real time; with every word of the dictionary it would be the slow general model.
 */
export const OPEN_VOCABULARY = (
  'a the i you it is to and of in that be for not on with he as do at this but his by from they we say her she or an will ' +
  'my one all would there their what so up out if about who get which go me when make can like time no just him know take ' +
  'people into year your good some could them see other than then now look only come its over think also back after use two ' +
  'how our work first well way even new want because any these give day most us'
).split(' ')

const esc = (w: string) => w
/** Words the grammar lets around a command. */
const AROUND = 2

/** The JSGF for `intents` and the open vocabulary, and the matcher of recognised text. */
export const compileCommands = (
  intents: ReadonlyArray<Intent>,
  dict: Pronunciations,
  extraWords: Readonly<Record<string, string>> = {},
  garbageWeight = 1e-10,
): CompiledCommands => {
  const used = checkIntents(intents, dict, extraWords)
  const vocabulary = OPEN_VOCABULARY.filter((w) => dict.has(w) || extraWords[w] !== undefined)
  const parsed = intents.map((intent) => intent.phrases.map(parsePhrase))
  const rules: string[] = []
  const node = (n: Node, i: number): string => {
    if (n.k === 'word') return esc(n.w)
    if (n.k === 'slot') return `<i${i}_${n.name}>`
    const inner = n.alt.map((seq) => seq.map((x) => node(x, i)).join(' ')).join(' | ')
    return n.k === 'opt' ? `[ ${inner} ]` : `( ${inner} )`
  }
  parsed.forEach((phrases, i) => {
    const alternatives = phrases.flatMap((alt) => alt.map((seq) => seq.map((n) => node(n, i)).join(' ')))
    rules.push(`<i${i}> = ${alternatives.join(' | ')};`)
    for (const [slot, values] of Object.entries(intents[i]!.slots ?? {})) {
      rules.push(`<i${i}_${slot}> = ${slotPhrases(values).map((p) => p.toLowerCase().trim().split(/\s+/).join(' ')).join(' | ')};`)
    }
  })
  const commands = intents.length > 0 ? intents.map((_, i) => `<i${i}>`).join(' | ') : null
  // The loop's tiny weight keeps it from taking commands; it still wins on what is none.
  const top = commands ? `/1/ ( ${commands} ) | /${garbageWeight}/ <other>` : '<other>'
  const jsgf = [
    '#JSGF V1.0;',
    'grammar hark;',
    `public <utterance> = ${top};`,
    ...rules,
    `<other> = <word> +;`,
    `<word> = ${vocabulary.join(' | ')};`,
    '',
  ].join('\n')

  const match = (text: string) => {
    const all = text.toLowerCase().split(/\s+/).filter((w) => w && !w.startsWith('<') && !w.startsWith('['))
    // The widest span that is a command, with at most AROUND words before and after it.
    for (let extra = 0; extra <= 2 * AROUND; extra++) {
      for (let before = Math.min(extra, AROUND); before >= 0 && extra - before <= AROUND; before--) {
        const words = all.slice(before, all.length - (extra - before))
        if (words.length === 0) continue
        for (const [i, phrases] of parsed.entries()) {
          const intent = intents[i]!
          for (const alt of phrases) {
            const slots: Record<string, { spoken: string; value: unknown }> = {}
            if (matchAlt(alt, words, 0, intent, slots, (end) => end === words.length)) return { intent, slots }
          }
        }
      }
    }
    return null
  }
  return { jsgf, words: [...new Set([...used, ...vocabulary])], match }
}

/** Backtracking match of `alt` at `at`; `rest` decides whether the remainder matches. */
const matchAlt = (
  alt: Node[][],
  words: string[],
  at: number,
  intent: Intent,
  slots: Record<string, { spoken: string; value: unknown }>,
  rest: (end: number) => boolean,
): boolean => alt.some((seq) => matchSeq(seq, 0, words, at, intent, slots, rest))

const matchSeq = (
  seq: Node[],
  index: number,
  words: string[],
  at: number,
  intent: Intent,
  slots: Record<string, { spoken: string; value: unknown }>,
  rest: (end: number) => boolean,
): boolean => {
  if (index === seq.length) return rest(at)
  const n = seq[index]!
  const next = (end: number) => matchSeq(seq, index + 1, words, end, intent, slots, rest)
  switch (n.k) {
    case 'word':
      return words[at] === n.w && next(at + 1)
    case 'slot': {
      const values = intent.slots?.[n.name] ?? []
      for (const spoken of slotPhrases(values)) {
        const parts = spoken.toLowerCase().trim().split(/\s+/)
        if (parts.every((p, k) => words[at + k] === p)) {
          slots[n.name] = { spoken, value: slotValue(values, spoken) }
          if (next(at + parts.length)) return true
          delete slots[n.name]
        }
      }
      return false
    }
    case 'opt':
      return matchAlt(n.alt, words, at, intent, slots, next) || next(at)
    case 'group':
      return matchAlt(n.alt, words, at, intent, slots, next)
  }
}

export { dictionaryText }
