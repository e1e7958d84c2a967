/**
 * Reads two V8 heap snapshots (before and after opening the connections of `idle-fanout.ts`, or
 * of P7's idle worker run with `BENCH_HEAP_SNAPSHOT=PREFIX`: `node --expose-gc
 * packages/bench/dist/main.js --worker idle --client ours --params
 * '{"connections":50,"transport":"stdio"}'` writes PREFIX-ours-before/-after.heapsnapshot) and
 * prints what the objects new in the second one are, grouped by constructor (closures by function
 * name), with their count and self size, and for the largest groups what holds them (the
 * retainer's constructor and the edge's name).
 *
 *   node packages/bench/dist/heap-retainers.js BEFORE.heapsnapshot AFTER.heapsnapshot [TOP] [PER]
 *     TOP: how many groups (default 40); PER: connections to divide by (default 1).
 *
 * @since 0.2.0
 */
import { readFileSync } from "node:fs"

interface Snapshot {
  readonly snapshot: {
    readonly meta: {
      readonly node_fields: ReadonlyArray<string>
      readonly node_types: [ReadonlyArray<string>, ...Array<unknown>]
      readonly edge_fields: ReadonlyArray<string>
      readonly edge_types: [ReadonlyArray<string>, ...Array<unknown>]
    }
  }
  readonly nodes: ReadonlyArray<number>
  readonly edges: ReadonlyArray<number>
  readonly strings: ReadonlyArray<string>
}

interface Heap {
  readonly count: number
  readonly id: (i: number) => number
  readonly size: (i: number) => number
  readonly key: (i: number) => string
  /** Each node's retainers as (node, edge name) pairs. */
  readonly retainers: ReadonlyArray<Array<[number, string]>> | undefined
  /** Each node's own edge names (properties, captured variables), sorted and joined. */
  readonly shape: (i: number) => string
  /** The node an edge of that name leads to. */
  readonly edge: (i: number, name: string) => number | undefined
}

const load = (file: string, withRetainers: boolean): Heap => {
  const raw = JSON.parse(readFileSync(file, "utf8")) as Snapshot
  const meta = raw.snapshot.meta
  const nf = meta.node_fields.length
  const ef = meta.edge_fields.length
  const types = meta.node_types[0]
  const edgeTypes = meta.edge_types[0]
  const [typeAt, nameAt, idAt, sizeAt, edgeCountAt] = ["type", "name", "id", "self_size", "edge_count"].map((f) =>
    meta.node_fields.indexOf(f)
  ) as [number, number, number, number, number]
  const [eTypeAt, eNameAt, eToAt] = ["type", "name_or_index", "to_node"].map((f) => meta.edge_fields.indexOf(f)) as [
    number,
    number,
    number
  ]
  const { edges, nodes, strings } = raw
  const count = nodes.length / nf
  const key = (i: number): string => {
    const type = types[nodes[i * nf + typeAt]!]!
    const name = strings[nodes[i * nf + nameAt]!]!
    if (type === "object" || type === "native") return name
    if (type === "closure") return `closure ${name === "" ? "(anonymous)" : name}`
    if (type === "array" || type === "hidden" || type === "code") return `(${type}) ${name.slice(0, 40)}`
    return `(${type})`
  }
  let retainers: Array<Array<[number, string]>> | undefined
  const firstEdge: Array<number> = []
  for (let i = 0, e = 0; i < count; i++) {
    firstEdge.push(e)
    e += nodes[i * nf + edgeCountAt]! * ef
  }
  const shape = (i: number): string => {
    const names: Array<string> = []
    for (let k = 0, e = firstEdge[i]!; k < nodes[i * nf + edgeCountAt]!; k++, e += ef) {
      const edgeType = edgeTypes[edges[e + eTypeAt]!]!
      if (edgeType === "context" || edgeType === "property" || edgeType === "shortcut") {
        const name = strings[edges[e + eNameAt]!]!
        if (name !== "map" && name !== "__proto__" && name !== "previous" && name !== "scope_info") names.push(name)
      }
    }
    return names.sort().join(",")
  }
  const edge = (i: number, name: string): number | undefined => {
    for (let k = 0, e = firstEdge[i]!; k < nodes[i * nf + edgeCountAt]!; k++, e += ef) {
      const edgeType = edgeTypes[edges[e + eTypeAt]!]!
      if (edgeType !== "element" && edgeType !== "hidden" && strings[edges[e + eNameAt]!] === name) {
        return edges[e + eToAt]! / nf
      }
    }
    return undefined
  }
  if (withRetainers) {
    retainers = Array.from({ length: count }, () => [])
    let e = 0
    for (let i = 0; i < count; i++) {
      const edgeCount = nodes[i * nf + edgeCountAt]!
      for (let k = 0; k < edgeCount; k++, e += ef) {
        const edgeType = edgeTypes[edges[e + eTypeAt]!]!
        if (edgeType === "weak") continue
        const nameOrIndex = edges[e + eNameAt]!
        const name = edgeType === "element" || edgeType === "hidden" ? `[${nameOrIndex}]` : strings[nameOrIndex]!
        retainers[edges[e + eToAt]! / nf]!.push([i, name])
      }
    }
  }
  return {
    count,
    id: (i) => nodes[i * nf + idAt]!,
    size: (i) => nodes[i * nf + sizeAt]!,
    key,
    retainers,
    shape,
    edge
  }
}

const main = () => {
  const [beforeFile, afterFile, topArg, perArg] = process.argv.slice(2)
  if (beforeFile === undefined || afterFile === undefined) throw new Error("usage: BEFORE AFTER [TOP] [PER]")
  const top = Number(topArg ?? 40)
  const per = Number(perArg ?? 1)
  const chains = new Set((process.env.HEAP_CHAIN ?? "").split(",").filter((k) => k !== ""))
  const detail = new Set((process.env.HEAP_DETAIL ?? "").split(",").filter((k) => k !== ""))
  const before = load(beforeFile, false)
  const old = new Set<number>()
  for (let i = 0; i < before.count; i++) old.add(before.id(i))
  const after = load(afterFile, true)
  const groups = new Map<string, { count: number; size: number; nodes: Array<number> }>()
  let total = 0
  for (let i = 0; i < after.count; i++) {
    if (old.has(after.id(i))) continue
    const key = after.key(i)
    const group = groups.get(key) ?? { count: 0, size: 0, nodes: [] }
    group.count++
    group.size += after.size(i)
    group.nodes.push(i)
    groups.set(key, group)
    total += after.size(i)
  }
  if (process.env.HEAP_BY_SCOPE !== undefined) {
    // Closures by the variables of the scope they close over: which function made them.
    const scopes = new Map<string, { n: number; size: number }>()
    for (const [key, group] of groups) {
      if (!key.startsWith("closure")) continue
      for (const i of group.nodes) {
        const context = after.edge(i, "context")
        const name = context === undefined ? "?" : after.shape(context).slice(0, 150)
        const entry = scopes.get(name) ?? { n: 0, size: 0 }
        entry.n++
        entry.size += after.size(i)
        scopes.set(name, entry)
      }
    }
    for (const [name, { n, size }] of [...scopes.entries()].sort((a, b) => b[1].size - a[1].size).slice(0, top)) {
      console.log(
        `${(size / per).toFixed(0).padStart(7)} B ${(n / per).toFixed(1).padStart(5)}× closures over {${name}}`
      )
    }
  }
  if (process.env.HEAP_EFFECTS !== undefined) {
    // Effects kept built: what made each (the scope its first closure closes over) and who keeps it.
    const made = new Map<string, number>()
    for (const i of groups.get("EffectPrimitive")?.nodes ?? []) {
      const f = after.edge(i, "commit") ?? after.edge(i, "effect_instruction_i0")
      const context = f === undefined ? undefined : after.edge(f, "context")
      const fname = f === undefined ? "-" : after.key(f)
      const holder = after.retainers![i]!.map(([h, e]) => `${after.key(h)}.${e}`)[0] ?? "?"
      const name = `${fname} over {${context === undefined ? "" : after.shape(context).slice(0, 90)}} <- ${holder}`
      made.set(name, (made.get(name) ?? 0) + 1)
    }
    for (const [name, n] of [...made.entries()].sort((a, b) => b[1] - a[1]).slice(0, top)) {
      console.log(`${(n / per).toFixed(1).padStart(5)}× ${name}`)
    }
  }
  console.log(`new objects: ${(total / per / 1024).toFixed(1)} KiB self size per connection (${per} connections)`)
  const sorted = [...groups.entries()].sort((a, b) => b[1].size - a[1].size).slice(0, top)
  for (const [key, group] of sorted) {
    const holders = new Map<string, number>()
    for (const i of group.nodes) {
      for (const [holder, edge] of after.retainers![i]!) {
        const name = `${after.key(holder)}.${edge}`
        holders.set(name, (holders.get(name) ?? 0) + 1)
      }
    }
    const held = [...holders.entries()].sort((a, b) => b[1] - a[1]).slice(0, 4)
      .map(([name, n]) => `${name}×${(n / per).toFixed(1)}`).join(", ")
    console.log(
      `${(group.size / per).toFixed(0).padStart(7)} B ${(group.count / per).toFixed(1).padStart(7)}× ${
        key.slice(0, 60)
      }  <- ${held}`
    )
    if (chains.has(key)) {
      for (const start of [group.nodes[0]!, group.nodes[Math.floor(group.nodes.length / 2)]!]) {
        const seen = new Set<number>([start])
        const steps: Array<string> = [after.key(start)]
        let at = start
        for (let depth = 0; depth < 14; depth++) {
          const next = after.retainers![at]!.find(([holder]) => !seen.has(holder))
          if (next === undefined) break
          steps.push(`${next[1]} of ${after.key(next[0])}{${after.shape(next[0]).slice(0, 80)}}`)
          seen.add(next[0])
          at = next[0]
        }
        console.log(`          chain: ${steps.join("\n            <- ")}`)
      }
    }
    if (detail.has(key)) {
      const shapes = new Map<string, { n: number; size: number }>()
      for (const i of group.nodes) {
        const name = after.shape(i)
        const entry = shapes.get(name) ?? { n: 0, size: 0 }
        entry.n++
        entry.size += after.size(i)
        shapes.set(name, entry)
      }
      for (const [name, { n, size }] of [...shapes.entries()].sort((a, b) => b[1].size - a[1].size).slice(0, 60)) {
        console.log(
          `          ${(size / per).toFixed(0).padStart(6)} B ${(n / per).toFixed(1).padStart(5)}× {${
            name.slice(0, 200)
          }}`
        )
      }
    }
  }
}

main()
