/**
 * A form generated from an agent provider's config schema (JSON Schema, as GET agent-providers
 * gives it): one labelled control per property — a select for an enum, a checkbox for a boolean,
 * a number field for a number, a text field otherwise; what is left empty is left out, so the
 * provider's default applies. Properties of other shapes are edited as JSON. A control's label is
 * the property's title, else one made from its key ("silenceMs" → "Silence (ms)"); its hint says
 * the description, the default and the key a preset's config uses. An object whose every property
 * is a list of strings (a config's `tools`: allow-lists per source) is one text area per list, a
 * pattern per line; its form values are keyed `<key>.<property>`.
 */
import { useId } from 'preact/hooks'
import { labelOf, sentence } from './format'
import type { JsonSchema } from './types'

const typeOf = (s: JsonSchema): string => {
  const t = Array.isArray(s.type) ? s.type.find((x) => x !== 'null') : s.type
  return typeof t === 'string' ? t : s.enum ? 'enum' : 'string'
}

/** The properties of an object made only of lists of strings (allow-lists per source), else null. */
const listsOf = (s: JsonSchema): Array<[string, JsonSchema]> | null => {
  if (typeOf(s) !== 'object') return null
  const entries = Object.entries(s.properties ?? {})
  return entries.length > 0 && entries.every(([, p]) => typeOf(p) === 'array' && p.items !== undefined && typeOf(p.items) === 'string') ? entries : null
}

const linesOf = (text: string | boolean | undefined): string[] =>
  typeof text === 'string'
    ? text
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l !== '')
    : []

/** Form values (strings, booleans) to a config object; empty ones omitted. */
export const configFrom = (schema: JsonSchema, values: Readonly<Record<string, string | boolean>>): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const [key, prop] of Object.entries(schema.properties ?? {})) {
    const lists = listsOf(prop)
    if (lists) {
      const chosen = lists.map(([k]) => [k, linesOf(values[`${key}.${k}`])] as const).filter(([, l]) => l.length > 0)
      if (chosen.length > 0) out[key] = Object.fromEntries(chosen)
      continue
    }
    const v = values[key]
    if (v === undefined || v === '') continue
    const t = prop.enum ? 'enum' : typeOf(prop)
    if (t === 'boolean') out[key] = v === true
    else if (t === 'number' || t === 'integer') out[key] = Number(v)
    else if (t === 'object' || t === 'array') out[key] = JSON.parse(String(v)) as unknown
    else if (t === 'enum') out[key] = prop.enum!.find((e) => String(e) === v) ?? v
    else out[key] = v
  }
  return out
}

/** A config object back to form values. */
export const valuesFrom = (schema: JsonSchema, config: Readonly<Record<string, unknown>>): Record<string, string | boolean> => {
  const out: Record<string, string | boolean> = {}
  for (const [key, prop] of Object.entries(schema.properties ?? {})) {
    const v = config[key]
    if (v === undefined) continue
    const lists = listsOf(prop)
    if (lists && typeof v === 'object' && v !== null && !Array.isArray(v)) {
      for (const [k] of lists) {
        const list = (v as Record<string, unknown>)[k]
        if (Array.isArray(list)) out[`${key}.${k}`] = list.map(String).join('\n')
      }
      continue
    }
    const t = typeOf(prop)
    out[key] = t === 'boolean' ? v === true : t === 'object' || t === 'array' ? JSON.stringify(v) : String(v)
  }
  return out
}

export const SchemaFields = ({
  schema,
  values,
  onChange,
  prefix = '',
}: {
  schema: JsonSchema
  values: Readonly<Record<string, string | boolean>>
  onChange: (values: Record<string, string | boolean>) => void
  prefix?: string
}) => {
  const base = useId()
  const entries = Object.entries(schema.properties ?? {})
  if (entries.length === 0) return <p class="hint">This provider has no settings.</p>
  return (
    <fieldset>
      <legend>{prefix}Provider settings</legend>
      {entries.map(([key, prop]) => {
        const id = `${base}-${key}`
        const label = labelOf(key, prop)
        const set = (v: string | boolean) => onChange({ ...values, [key]: v })
        const help = [prop.description ? sentence(prop.description) : null, prop.default !== undefined ? `Default: ${JSON.stringify(prop.default)}.` : null, `Key: ${key}.`]
          .filter(Boolean)
          .join(' ')
        const hint = (
          <p class="hint" id={`${id}-hint`}>
            {help}
          </p>
        )
        const describedBy = `${id}-hint`
        const lists = listsOf(prop)
        if (lists) return <ListsFields key={key} id={id} name={key} label={label} help={help} lists={lists} values={values} onChange={onChange} />
        if (prop.enum) {
          return (
            <div class="field" key={key}>
              <label for={id}>{label}</label>
              <select id={id} aria-describedby={describedBy} value={String(values[key] ?? '')} onChange={(e) => set(e.currentTarget.value)}>
                <option value="">(default)</option>
                {prop.enum.map((v) => (
                  <option key={String(v)} value={String(v)}>
                    {String(v)}
                  </option>
                ))}
              </select>
              {hint}
            </div>
          )
        }
        const t = typeOf(prop)
        if (t === 'boolean') {
          return (
            <div class="field check" key={key}>
              <input id={id} type="checkbox" aria-describedby={describedBy} checked={values[key] === true} onChange={(e) => set(e.currentTarget.checked)} />
              <label for={id}>{label}</label>
              {hint}
            </div>
          )
        }
        const multiline = t === 'object' || t === 'array' || key.toLowerCase().includes('instructions') || key.toLowerCase().includes('prompt')
        return (
          <div class="field" key={key}>
            <label for={id}>{t === 'object' || t === 'array' ? `${label} (JSON)` : label}</label>
            {multiline ? (
              <textarea id={id} aria-describedby={describedBy} rows={3} value={String(values[key] ?? '')} onInput={(e) => set(e.currentTarget.value)} />
            ) : t === 'number' || t === 'integer' ? (
              <input
                id={id}
                aria-describedby={describedBy}
                type="number"
                step={t === 'integer' ? 1 : 'any'}
                min={prop.minimum}
                max={prop.maximum}
                value={String(values[key] ?? '')}
                onInput={(e) => set(e.currentTarget.value)}
              />
            ) : (
              <input id={id} aria-describedby={describedBy} type="text" value={String(values[key] ?? '')} onInput={(e) => set(e.currentTarget.value)} />
            )}
            {hint}
          </div>
        )
      })}
    </fieldset>
  )
}

/** Allow-lists per source (a config's `tools`): one labelled text area per source, a pattern per line. */
const ListsFields = ({
  id,
  name,
  label,
  help,
  lists,
  values,
  onChange,
}: {
  id: string
  name: string
  label: string
  help: string
  lists: ReadonlyArray<[string, JsonSchema]>
  values: Readonly<Record<string, string | boolean>>
  onChange: (values: Record<string, string | boolean>) => void
}) => (
  <fieldset>
    <legend>{label}</legend>
    <p class="hint">{help}</p>
    {lists.map(([source, list]) => {
      const key = `${name}.${source}`
      const fid = `${id}-${source}`
      return (
        <div class="field" key={key}>
          <label for={fid}>{name === 'tools' ? `Allowed ${source} tools (one per line)` : `${label}: ${source} (one per line)`}</label>
          <textarea id={fid} rows={2} aria-describedby={`${fid}-hint`} value={String(values[key] ?? '')} onInput={(e) => onChange({ ...values, [key]: e.currentTarget.value })} />
          <p class="hint" id={`${fid}-hint`}>
            {[list.description ? sentence(list.description) : null, list.items?.description ? `Each line: ${list.items.description}.` : null, 'Empty: none.', `Key: ${key}.`]
              .filter(Boolean)
              .join(' ')}
          </p>
        </div>
      )
    })}
  </fieldset>
)
