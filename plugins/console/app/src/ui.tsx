/**
 * The console's small set of building blocks: links that route in place, labelled fields and
 * checkboxes, the server's error shown where the action was, a copy button, a value shown once
 * (a new key or secret), a data table with its caption and column heads (scrolling sideways in
 * its own region when it is wider than the screen), a confirmation dialog, times, key/value
 * lists, and what an empty list says to do next.
 * Every control has a visible label or an accessible name; status changes are announced.
 */
import { Fragment, type AnchorHTMLAttributes, type ComponentChildren, type InputHTMLAttributes, type SelectHTMLAttributes } from 'preact'
import { useEffect, useId, useLayoutEffect, useRef, useState } from 'preact/hooks'
import { ApiError } from './api'
import { compactTime, entriesOf } from './format'
import { navigate } from './router'

export const Link = ({ href, children, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) => (
  <a
    {...rest}
    href={href}
    onClick={(e) => {
      if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return
      e.preventDefault()
      navigate(href)
    }}
  >
    {children}
  </a>
)

/** A labelled input; extra props go to the input. */
export const Field = ({ label, hint, ...input }: InputHTMLAttributes<HTMLInputElement> & { label: string; hint?: string }) => {
  const id = useId()
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input id={id} aria-describedby={hint ? `${id}-hint` : undefined} {...input} />
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
    </div>
  )
}

export const SelectField = ({ label, hint, children, ...select }: SelectHTMLAttributes<HTMLSelectElement> & { label: string; hint?: string; children: ComponentChildren }) => {
  const id = useId()
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} aria-describedby={hint ? `${id}-hint` : undefined} {...select}>
        {children}
      </select>
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
    </div>
  )
}

/** A labelled checkbox. */
export const CheckField = ({ label, checked, onChange }: { label: string; checked: boolean; onChange: (e: { currentTarget: HTMLInputElement }) => void }) => {
  const id = useId()
  return (
    <div class="field check">
      <input id={id} type="checkbox" checked={checked} onChange={onChange} />
      <label for={id}>{label}</label>
    </div>
  )
}

/** Whether the element is wider inside than it shows (it scrolls sideways), followed as either size changes. */
const useOverflows = (ref: { readonly current: HTMLElement | null }) => {
  const [overflows, setOverflows] = useState(false)
  useLayoutEffect(() => {
    const el = ref.current
    if (!el) return
    const check = () => setOverflows(el.scrollWidth > el.clientWidth + 1)
    check()
    const observer = new ResizeObserver(check)
    observer.observe(el)
    if (el.firstElementChild) observer.observe(el.firstElementChild)
    return () => observer.disconnect()
  }, [])
  return overflows
}

/**
 * A table with a caption for screen readers and one column head per name. Wider than the screen,
 * it scrolls sideways in its own region, which then takes the focus so arrow keys scroll it.
 */
export const DataTable = ({
  caption,
  columns,
  children,
  name,
}: {
  caption: string
  columns: ReadonlyArray<string>
  children: ComponentChildren
  /** A class for the table's own column rules in styles.css. */
  name?: string
}) => {
  const ref = useRef<HTMLDivElement>(null)
  const scrolls = useOverflows(ref)
  return (
    <div ref={ref} class={name ? `table-scroll ${name}` : 'table-scroll'} {...(scrolls ? { role: 'region', 'aria-label': caption, tabIndex: 0 } : {})}>
      <table>
        <caption class="sr-only">{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th scope="col" key={c}>
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  )
}

/** A time in a table cell: short, with the full date and time as its title and machine value. */
export const When = ({ iso, empty = '—' }: { iso: string | null; empty?: string }) => {
  if (iso === null) return <>{empty}</>
  const { short, full } = compactTime(iso)
  return (
    <time dateTime={iso} title={full}>
      {short}
    </time>
  )
}

/** Text that may wrap after "@", ".", "_", "-", ":" and "/" (emails, ids, addresses) instead of widening its column. */
export const Breakable = ({ text }: { text: string }) => (
  <>
    {text.split(/(?<=[@._:/-])/).map((part, i) => (
      <Fragment key={i}>
        {i > 0 && <wbr />}
        {part}
      </Fragment>
    ))}
  </>
)

/** An object's fields as "key: value" lines (an audit event's detail, a preset's settings). */
export const KeyValues = ({ value }: { value: Readonly<Record<string, unknown>> | null }) => {
  const entries = entriesOf(value)
  if (entries.length === 0) return <>—</>
  return (
    <dl class="kv">
      {entries.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>
            <Breakable text={v} />
          </dd>
        </div>
      ))}
    </dl>
  )
}

/** What an empty list says: that it is empty, and what to do next. */
export const Empty = ({ children }: { children: ComponentChildren }) => <div class="empty">{children}</div>

/**
 * A secret shown this once (a new API key, a webhook's signing secret): the warning, the value
 * with a copy button, and a button that puts it away.
 */
export const ShownOnce = ({
  region,
  label,
  value,
  copyLabel,
  children,
  onDone,
}: {
  region: string
  label: string
  value: string
  copyLabel: string
  children: ComponentChildren
  onDone: () => void
}) => (
  <div class="notice" role="region" aria-label={region}>
    {children}
    <ShownValue label={label} value={value} copyLabel={copyLabel} />
    <button type="button" class="secondary small" onClick={onDone}>
      I have copied it
    </button>
  </div>
)

/** A secret or a value shown read-only, with its label and a copy button. */
export const ShownValue = ({ label, value, copyLabel }: { label: string; value: string; copyLabel: string }) => {
  const id = useId()
  return (
    <div class="field shown">
      <label for={id}>{label}</label>
      <div class="row">
        <input id={id} readOnly value={value} class="mono" onFocus={(e) => e.currentTarget.select()} />
        <CopyButton value={value} label={copyLabel} />
      </div>
    </div>
  )
}

export const CopyButton = ({ value, label }: { value: string; label: string }) => {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle')
  return (
    <>
      <button
        type="button"
        class="secondary"
        onClick={async () => {
          try {
            await navigator.clipboard.writeText(value)
            setState('copied')
          } catch {
            setState('failed')
          }
        }}
      >
        {label}
      </button>
      <span role="status" class="status">
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copying failed: select the text and copy it' : ''}
      </span>
    </>
  )
}

/** The server's words for a failed action, announced where the action was. */
export const ErrorText = ({ error }: { error: unknown }) =>
  error ? (
    <p role="alert" class="error">
      {error instanceof ApiError || error instanceof Error ? error.message : String(error)}
    </p>
  ) : null

/** Run an action, keep its error and whether it runs; the form stays usable. */
export const useAction = () => {
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const run = async (f: () => Promise<unknown>) => {
    setBusy(true)
    setError(null)
    try {
      await f()
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }
  return { error, busy, run, setError }
}

/** A modal confirmation (native <dialog>): the question, a confirm and a cancel button. */
export const Confirm = ({
  open,
  title,
  children,
  confirmLabel,
  onConfirm,
  onCancel,
}: {
  open: boolean
  title: string
  children: ComponentChildren
  confirmLabel: string
  onConfirm: () => void
  onCancel: () => void
}) => {
  const ref = useRef<HTMLDialogElement>(null)
  const id = useId()
  useEffect(() => {
    const d = ref.current
    if (!d) return
    if (open && !d.open) d.showModal()
    if (!open && d.open) d.close()
  }, [open])
  return (
    <dialog ref={ref} role="alertdialog" aria-labelledby={`${id}-title`} aria-describedby={`${id}-body`} onCancel={onCancel}>
      <h2 id={`${id}-title`}>{title}</h2>
      <div id={`${id}-body`}>{children}</div>
      <div class="row end">
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" class="danger" onClick={onConfirm}>
          {confirmLabel}
        </button>
      </div>
    </dialog>
  )
}

export const time = (iso: string | null) => (iso === null ? '—' : new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }))

/** The page's heading; also names the document. */
export const PageTitle = ({ children, workspace }: { children: string; workspace?: string }) => {
  useEffect(() => {
    document.title = workspace ? `${children} · ${workspace} · Hark console` : `${children} · Hark console`
  }, [children, workspace])
  return <h1>{children}</h1>
}
