/**
 * Bytes per object kind in a V8 heap snapshot, per terminal: where the memory of N idle terminals
 * goes (issue 18). Take the snapshot with HARK_BENCH_HEAP_SNAPSHOT=DIR (harness/heapSnapshot.ts),
 * then:
 *
 *   node dist/bench/heapSummary.js FILE.heapsnapshot [--per N] [--top 40] [--baseline BASE.heapsnapshot]
 *
 * Prints one row per kind (an object's constructor name, `(closure) name` for functions, the
 * node type in parentheses for V8's own kinds): instances, shallow bytes (the objects
 * themselves) and retained bytes (what would be freed with them: the dominator tree, weak edges
 * ignored; a kind's instances dominated by an instance of the same kind count once), each
 * divided by N. With --baseline, the rows are the growth over a snapshot of the same server
 * before the terminals connected.
 *
 * The snapshot is read as bytes and its node and edge arrays parsed as numbers without building
 * a JSON string of the whole file (snapshots of 10k terminals pass V8's string limit).
 */
import { readFileSync } from 'node:fs'

interface Snapshot {
  readonly nodeFields: number
  readonly edgeFields: number
  readonly nodeTypes: readonly string[]
  readonly edgeTypes: readonly string[]
  readonly nodes: Uint32Array
  readonly edges: Uint32Array
  readonly strings: readonly string[]
  /** Field offsets. */
  readonly f: { type: number; name: number; selfSize: number; edgeCount: number; edgeType: number; edgeTo: number }
}

/** Byte offset just after `key` (e.g. `"nodes":[`) in `buf`, searching from `from`. */
const after = (buf: Buffer, key: string, from = 0): number => {
  const i = buf.indexOf(key, from, 'latin1')
  if (i < 0) throw new Error(`not a V8 heap snapshot: ${key} missing`)
  return i + key.length
}

/** The unsigned integers of a JSON array of numbers starting at `pos` (just after its `[`). */
const numbers = (buf: Buffer, pos: number): Uint32Array => {
  let out = new Uint32Array(1 << 20)
  let n = 0
  let value = 0
  let inNumber = false
  for (let i = pos; i < buf.length; i++) {
    const c = buf[i]!
    if (c >= 0x30 && c <= 0x39) {
      value = value * 10 + (c - 0x30)
      inNumber = true
      continue
    }
    if (inNumber) {
      if (n === out.length) {
        const grown = new Uint32Array(out.length * 2)
        grown.set(out)
        out = grown
      }
      out[n++] = value
      value = 0
      inNumber = false
    }
    if (c === 0x5d) return out.subarray(0, n)
  }
  throw new Error('heap snapshot ends inside an array')
}

export const readSnapshot = (file: string): Snapshot => {
  const buf = readFileSync(file)
  const metaStart = after(buf, '"snapshot":')
  const nodesAt = after(buf, '"nodes":[', metaStart)
  // The meta object sits before "nodes" and is small: parse it as JSON.
  const head = buf.toString('utf8', metaStart, nodesAt - '"nodes":['.length).replace(/,\s*$/, '')
  const meta = (JSON.parse(head) as { meta: Record<string, unknown> }).meta
  const nodeFieldNames = meta.node_fields as string[]
  const edgeFieldNames = meta.edge_fields as string[]
  const nodeTypes = (meta.node_types as unknown[])[0] as string[]
  const edgeTypes = (meta.edge_types as unknown[])[0] as string[]
  const nodes = numbers(buf, nodesAt)
  const edges = numbers(buf, after(buf, '"edges":[', nodesAt))
  const stringsAt = after(buf, '"strings":[', nodesAt) - 1
  // Strings are JSON strings: find the array's end by scanning for `]` outside a string.
  let end = stringsAt + 1
  let inString = false
  for (; end < buf.length; end++) {
    const c = buf[end]!
    if (inString) {
      if (c === 0x5c) end++
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x5d) break
  }
  const strings = JSON.parse(buf.toString('utf8', stringsAt, end + 1)) as string[]
  return {
    nodeFields: nodeFieldNames.length,
    edgeFields: edgeFieldNames.length,
    nodeTypes,
    edgeTypes,
    nodes,
    edges,
    strings,
    f: {
      type: nodeFieldNames.indexOf('type'),
      name: nodeFieldNames.indexOf('name'),
      selfSize: nodeFieldNames.indexOf('self_size'),
      edgeCount: nodeFieldNames.indexOf('edge_count'),
      edgeType: edgeFieldNames.indexOf('type'),
      edgeTo: edgeFieldNames.indexOf('to_node'),
    },
  }
}

export interface KindRow {
  readonly kind: string
  count: number
  shallow: number
  retained: number
}

/** Rows per kind, with retained sizes from the dominator tree (Cooper, Harvey & Kennedy). */
export const summarise = (s: Snapshot): Map<string, KindRow> => {
  const count = s.nodes.length / s.nodeFields
  const { f } = s
  const weak = s.edgeTypes.indexOf('weak')
  // Outgoing edges per node (CSR), weak edges left out.
  const firstEdge = new Uint32Array(count + 1)
  for (let i = 0, e = 0; i < count; i++) {
    firstEdge[i] = e
    e += s.nodes[i * s.nodeFields + f.edgeCount]! * s.edgeFields
    if (i === count - 1) firstEdge[count] = e
  }
  const target = (e: number) => s.edges[e + f.edgeTo]! / s.nodeFields
  const strong = (e: number) => s.edges[e + f.edgeType]! !== weak
  // Depth-first postorder from the root (node 0), iterative.
  const post = new Int32Array(count).fill(-1)
  const order = new Uint32Array(count)
  const visited = new Uint8Array(count)
  const stack = new Uint32Array(count)
  const cursor = new Uint32Array(count)
  let sp = 0
  let n = 0
  stack[sp++] = 0
  visited[0] = 1
  cursor[0] = firstEdge[0]!
  while (sp > 0) {
    const v = stack[sp - 1]!
    let pushed = false
    while (cursor[v]! < firstEdge[v + 1]!) {
      const e = cursor[v]!
      cursor[v] = e + s.edgeFields
      if (!strong(e)) continue
      const w = target(e)
      if (visited[w]) continue
      visited[w] = 1
      cursor[w] = firstEdge[w]!
      stack[sp++] = w
      pushed = true
      break
    }
    if (!pushed) {
      sp--
      post[v] = n
      order[n++] = v
    }
  }
  // Predecessors (reachable ones only), CSR.
  const predCount = new Uint32Array(count + 1)
  for (let v = 0; v < count; v++) {
    if (post[v]! < 0) continue
    for (let e = firstEdge[v]!; e < firstEdge[v + 1]!; e += s.edgeFields) if (strong(e)) predCount[target(e) + 1]!++
  }
  for (let v = 0; v < count; v++) predCount[v + 1]! += predCount[v]!
  const preds = new Uint32Array(predCount[count]!)
  const fill = predCount.slice()
  for (let v = 0; v < count; v++) {
    if (post[v]! < 0) continue
    for (let e = firstEdge[v]!; e < firstEdge[v + 1]!; e += s.edgeFields) if (strong(e)) preds[fill[target(e)]!++] = v
  }
  // Immediate dominators, by postorder number.
  const idom = new Int32Array(n).fill(-1)
  const root = post[0]!
  idom[root] = root
  const intersect = (a: number, b: number) => {
    while (a !== b) {
      while (a < b) a = idom[a]!
      while (b < a) b = idom[b]!
    }
    return a
  }
  for (let changed = true, rounds = 0; changed && rounds < 1000; rounds++) {
    changed = false
    for (let i = n - 2; i >= 0; i--) {
      const v = order[i]!
      let d = -1
      for (let p = predCount[v]!; p < predCount[v + 1]!; p++) {
        const u = post[preds[p]!]!
        if (idom[u]! < 0) continue
        d = d < 0 ? u : intersect(u, d)
      }
      if (d >= 0 && idom[i] !== d) {
        idom[i] = d
        changed = true
      }
    }
  }
  const kindOf = (v: number): string => {
    const base = v * s.nodeFields
    const type = s.nodeTypes[s.nodes[base + f.type]!]!
    const name = s.strings[s.nodes[base + f.name]!]!
    if (type === 'object' || type === 'native') return name.length > 60 ? `${name.slice(0, 57)}...` : name
    if (type === 'closure') return `(closure) ${name || '(anonymous)'}`
    if (type === 'string' || type === 'concatenated string' || type === 'sliced string') return '(string)'
    if (type === 'hidden' || type === 'array' || type === 'object shape') return `(${type}) ${name.length > 40 ? `${name.slice(0, 37)}...` : name}`
    return `(${type})`
  }
  const retained = new Float64Array(n)
  const kinds = new Array<string>(n)
  for (let i = 0; i < n; i++) {
    const v = order[i]!
    retained[i] = s.nodes[v * s.nodeFields + f.selfSize]!
    kinds[i] = kindOf(v)
  }
  // Postorder: every node comes before its dominator, so sizes flow up in one pass.
  for (let i = 0; i < n - 1; i++) if (idom[i]! !== i) retained[idom[i]!]! += retained[i]!
  const rows = new Map<string, KindRow>()
  for (let i = 0; i < n; i++) {
    const kind = kinds[i]!
    let row = rows.get(kind)
    if (!row) rows.set(kind, (row = { kind, count: 0, shallow: 0, retained: 0 }))
    row.count++
    row.shallow += s.nodes[order[i]! * s.nodeFields + f.selfSize]!
    // Count a kind's retained size once: skip instances whose dominator chain meets the same kind.
    let d = idom[i]!
    let nested = false
    for (let hops = 0; d !== root && hops < 64; hops++, d = idom[d]!) {
      if (kinds[d] === kind) {
        nested = true
        break
      }
    }
    if (!nested) row.retained += retained[i]!
  }
  return rows
}

const main = () => {
  const args = process.argv.slice(2)
  const opt = (name: string) => {
    const i = args.indexOf(name)
    if (i < 0) return null
    const v = args[i + 1]
    args.splice(i, 2)
    return v ?? null
  }
  const per = Number(opt('--per') ?? 1)
  const top = Number(opt('--top') ?? 40)
  const baselineFile = opt('--baseline')
  const file = args[0]
  if (!file || !(per > 0) || !(top > 0)) {
    process.stderr.write('usage: heapSummary FILE.heapsnapshot [--per N] [--top 40] [--baseline BASE.heapsnapshot]\n')
    process.exit(2)
  }
  const rows = summarise(readSnapshot(file))
  const base = baselineFile ? summarise(readSnapshot(baselineFile)) : new Map<string, KindRow>()
  const grown = [...rows.values()].map((r) => {
    const b = base.get(r.kind)
    return { kind: r.kind, count: r.count - (b?.count ?? 0), shallow: r.shallow - (b?.shallow ?? 0), retained: r.retained - (b?.retained ?? 0) }
  })
  const total = grown.reduce((sum, r) => sum + r.shallow, 0)
  const fmt = (x: number, digits = 0) => (x / per).toFixed(digits)
  process.stdout.write(`${file}${baselineFile ? ` minus ${baselineFile}` : ''}: ${(total / 1024 / 1024).toFixed(1)} MB shallow; per ${per}: ${fmt(total)} B\n`)
  process.stdout.write(`${'kind'.padEnd(62)} ${'count/N'.padStart(8)} ${'shallow B/N'.padStart(11)} ${'retained B/N'.padStart(12)}\n`)
  for (const r of grown.sort((a, b) => b.shallow - a.shallow).slice(0, top)) {
    process.stdout.write(`${r.kind.padEnd(62)} ${fmt(r.count, 2).padStart(8)} ${fmt(r.shallow).padStart(11)} ${fmt(r.retained).padStart(12)}\n`)
  }
}

if (process.argv[1]?.endsWith('heapSummary.js')) main()
