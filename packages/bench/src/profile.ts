/**
 * Summarizes a V8 `.cpuprofile` (from `node --cpu-prof`): the functions with the most self
 * time, and self time per package.
 *
 *   node packages/bench/dist/profile.js FILE.cpuprofile [TOP] [--callers NAME]
 *
 * `--callers NAME` also prints the most frequent call stacks (innermost first) of the samples
 * whose function name contains NAME.
 *
 * @since 0.1.0
 */
import { readFileSync } from "node:fs"

interface ProfileNode {
  readonly id: number
  readonly children?: ReadonlyArray<number>
  readonly callFrame: {
    readonly functionName: string
    readonly url: string
    readonly lineNumber: number
  }
}

interface Profile {
  readonly nodes: ReadonlyArray<ProfileNode>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

const packageOf = (url: string): string => {
  if (url === "") return "(native/vm)"
  if (url.startsWith("node:")) return "node internals"
  const modules = url.lastIndexOf("node_modules/")
  if (modules !== -1) {
    const rest = url.slice(modules + "node_modules/".length).split("/")
    return rest[0]!.startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]!
  }
  const workspace = /packages\/([^/]+)\//.exec(url)
  return workspace !== null ? `@mcp-effect/${workspace[1]}` : url
}

const shortUrl = (url: string): string => {
  const modules = url.lastIndexOf("node_modules/")
  if (modules !== -1) return url.slice(modules + "node_modules/".length)
  const workspace = url.indexOf("packages/")
  return workspace !== -1 ? url.slice(workspace) : url
}

const main = () => {
  const file = process.argv[2]
  if (file === undefined) throw new Error("usage: profile.js FILE.cpuprofile [TOP]")
  const callersIndex = process.argv.indexOf("--callers")
  const callers = callersIndex === -1 ? undefined : process.argv[callersIndex + 1]
  const topArg = process.argv[3]
  const top = topArg !== undefined && /^\d+$/.test(topArg) ? Number(topArg) : 25
  const profile = JSON.parse(readFileSync(file, "utf8")) as Profile
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const self = new Map<string, number>()
  const perPackage = new Map<string, number>()
  const perFile = new Map<string, number>()
  let total = 0
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0
    const node = byId.get(id)
    if (node === undefined) return
    const { functionName, lineNumber, url } = node.callFrame
    const key = `${functionName || "(anonymous)"}  ${shortUrl(url)}${url === "" ? "" : `:${lineNumber + 1}`}`
    self.set(key, (self.get(key) ?? 0) + dt)
    const pkg = functionName === "(idle)" || functionName === "(program)" || functionName === "(garbage collector)"
      ? functionName
      : packageOf(url)
    perPackage.set(pkg, (perPackage.get(pkg) ?? 0) + dt)
    const fileKey = url === "" ? pkg : shortUrl(url)
    perFile.set(fileKey, (perFile.get(fileKey) ?? 0) + dt)
    total += dt
  })
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  const frameName = (node: ProfileNode) => {
    const { functionName, lineNumber, url } = node.callFrame
    return `${functionName || "(anonymous)"} ${shortUrl(url)}${url === "" ? "" : `:${lineNumber + 1}`}`
  }
  const stacks = new Map<string, number>()
  if (callers !== undefined) {
    profile.samples.forEach((id, i) => {
      const node = byId.get(id)
      if (node === undefined || !node.callFrame.functionName.includes(callers)) return
      const frames: Array<string> = []
      let current: number | undefined = id
      while (current !== undefined && frames.length < 10) {
        const n = byId.get(current)
        if (n === undefined || n.callFrame.functionName === "(root)") break
        frames.push(frameName(n))
        current = parent.get(current)
      }
      const key = frames.join("\n      ← ")
      stacks.set(key, (stacks.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0))
    })
  }
  const pct = (us: number) => `${(us / total * 100).toFixed(1).padStart(5)} %`
  const ms = (us: number) => `${(us / 1000).toFixed(0).padStart(6)} ms`
  console.log(`${file}: ${(total / 1000).toFixed(0)} ms sampled`)
  console.log("\nself time by package")
  for (const [name, us] of [...perPackage].sort((a, b) => b[1] - a[1]).slice(0, 15)) {
    console.log(`  ${ms(us)} ${pct(us)}  ${name}`)
  }
  console.log("\nself time by file")
  for (const [name, us] of [...perFile].sort((a, b) => b[1] - a[1]).slice(0, 20)) {
    console.log(`  ${ms(us)} ${pct(us)}  ${name}`)
  }
  console.log(`\ntop ${top} functions by self time`)
  for (const [name, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`  ${ms(us)} ${pct(us)}  ${name}`)
  }
  if (callers !== undefined) {
    console.log(`\nstacks of ${JSON.stringify(callers)} (innermost first)`)
    for (const [stack, us] of [...stacks].sort((a, b) => b[1] - a[1]).slice(0, 6)) {
      console.log(`  ${ms(us)} ${pct(us)}  ${stack}`)
    }
  }
}

main()
