/**
 * The nesting bound of JSON the engine accepts: every value that will be walked (REST bodies,
 * agent configs and overrides) is measured first, without recursion, so a 4000-level `[[[…]]]`
 * is refused before anything recursive sees it.
 */

/** Deepest accepted nesting of objects and arrays; the outermost object or array is level 1. */
export const MAX_JSON_DEPTH = 32

/** True when `value` nests objects or arrays deeper than `max` levels (scalars are level 0). */
export const exceedsJsonDepth = (value: unknown, max: number = MAX_JSON_DEPTH): boolean => {
  if (typeof value !== 'object' || value === null) return false
  // Iterative walk: [value, its level] pairs still to look into.
  const pending: Array<[object, number]> = [[value, 1]]
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [node, level] = next
    if (level > max) return true
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (typeof child === 'object' && child !== null) pending.push([child, level + 1])
    }
  }
  return false
}
