/**
 * The console's own routes in the address bar (history API): pages are real paths, so a reload
 * or a link lands on the same page (the server answers every page path with index.html).
 */
import { useEffect, useState } from 'preact/hooks'

const listeners = new Set<() => void>()
const changed = () => listeners.forEach((l) => l())
window.addEventListener('popstate', changed)

export const navigate = (to: string, options: { replace?: boolean } = {}) => {
  if (to === location.pathname + location.search) return
  history[options.replace ? 'replaceState' : 'pushState'](null, '', to)
  window.scrollTo(0, 0)
  changed()
}

/** The current path and query; re-renders the caller when either changes. */
export const useLocation = () => {
  const [, setTick] = useState(0)
  useEffect(() => {
    const l = () => setTick((n) => n + 1)
    listeners.add(l)
    return () => void listeners.delete(l)
  }, [])
  return { path: location.pathname, query: new URLSearchParams(location.search) }
}

/** Go elsewhere once rendered (replacing this entry in the history). */
export const Redirect = ({ to }: { to: string }) => {
  useEffect(() => navigate(to, { replace: true }), [to])
  return null
}
