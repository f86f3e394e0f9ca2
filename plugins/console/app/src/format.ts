/**
 * Words for what the server answers with: times short enough for a table cell (the full one
 * beside them), a settings key as a label, an object as "key: value" pairs, and an example of a
 * provider's settings. Pure functions (format.test.ts).
 */
import type { JsonSchema } from './types'

/**
 * A time for a table cell: "Dec 2, 2:12 PM" this year, "Dec 2, 2025" before; `full` for its title.
 * Locale and zone are the browser's unless given.
 */
export const compactTime = (iso: string, now = new Date(), locale?: string, timeZone?: string): { short: string; full: string } => {
  const at = new Date(iso)
  const year = (d: Date) => new Intl.DateTimeFormat('en-US', { year: 'numeric', timeZone }).format(d)
  const short = at.toLocaleString(
    locale,
    year(at) === year(now) ? { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit', timeZone } : { dateStyle: 'medium', timeZone },
  )
  return { short, full: at.toLocaleString(locale, { dateStyle: 'full', timeStyle: 'long', timeZone }) }
}

const ACRONYMS: Readonly<Record<string, string>> = { id: 'ID', url: 'URL', api: 'API', vad: 'VAD', llm: 'LLM', tts: 'TTS', stt: 'STT', ip: 'IP', mcp: 'MCP' }
/** Unit suffixes of setting names, shown in parentheses. */
const UNITS: Readonly<Record<string, string>> = { ms: 'ms', dbov: 'dBov', hz: 'Hz', seconds: 'seconds', bytes: 'bytes', kbps: 'kbps' }

/** "maxUtteranceMs" → "Max utterance (ms)", "vadThreshold" → "VAD threshold": a settings key as a person reads it. */
export const labelFromKey = (key: string): string => {
  const words = key
    .replace(/[_-]+/g, ' ')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .trim()
    .split(/\s+/)
    .map((w) => w.toLowerCase())
  const unit = words.length > 1 ? UNITS[words[words.length - 1]!] : undefined
  if (unit) words.pop()
  const text = words.map((w) => ACRONYMS[w] ?? w).join(' ')
  const label = text.charAt(0).toUpperCase() + text.slice(1)
  return unit ? `${label} (${unit})` : label
}

/** A setting's label: the schema's title when it has one, else one made from its key. */
export const labelOf = (key: string, schema: JsonSchema): string => schema.title ?? labelFromKey(key)

/** A sentence from a description written as a phrase ("silence that ends…, ms" → "Silence that ends…, ms."). */
export const sentence = (text: string): string => {
  const t = text.trim()
  if (t === '') return t
  const capital = t.charAt(0).toUpperCase() + t.slice(1)
  return /[.!?]$/.test(capital) ? capital : `${capital}.`
}

/** A value as short text: strings as they are, other scalars as JSON, objects and arrays as compact JSON. */
const valueText = (v: unknown): string => (typeof v === 'string' ? v : v === undefined ? '' : JSON.stringify(v))

/** An object's fields as [key, text] pairs, in its order (an audit event's detail, a preset's config). */
export const entriesOf = (o: Readonly<Record<string, unknown>> | null): Array<[string, string]> =>
  o === null ? [] : Object.entries(o).map(([k, v]) => [k, valueText(v)])

const isScalar = (v: unknown) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'

/**
 * An example of a provider's settings as JSON, for a hint: its first setting with a plain default
 * (the default as the value), else its first setting with a value of its type; null when the
 * provider has no settings.
 */
export const exampleOf = (schema: JsonSchema): string | null => {
  const props = Object.entries(schema.properties ?? {})
  if (props.length === 0) return null
  const one = (key: string, value: unknown) => `{${JSON.stringify(key)}: ${JSON.stringify(value)}}`
  const withDefault = props.find(([, p]) => isScalar(p.default))
  if (withDefault) return one(withDefault[0], withDefault[1].default)
  const [key, p] = props[0]!
  const type = Array.isArray(p.type) ? p.type.find((t) => t !== 'null') : p.type
  const value = p.enum?.[0] ?? (type === 'integer' || type === 'number' ? (p.minimum ?? 1) : type === 'boolean' ? true : type === 'object' ? {} : type === 'array' ? [] : '…')
  return one(key, value)
}
