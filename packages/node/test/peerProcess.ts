/**
 * A test peer run as a child process on a loopback port, which a test can kill and start again on the
 * same port (a server restart in the middle of a client's session).
 */
import { spawn } from "node:child_process"
import type { ChildProcessByStdio } from "node:child_process"
import * as net from "node:net"
import type { Readable } from "node:stream"
import { everythingBin } from "./paths.js"

/** A free loopback port, as the other interop suites pick one. */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = net.createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const port = (probe.address() as net.AddressInfo).port
      probe.close(() => resolve(port))
    })
  })

/** Resolves once something accepts connections on the loopback `port`. */
export const waitForPort = async (port: number, deadline = Date.now() + 20_000): Promise<void> => {
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1", () => {
        socket.end()
        resolve(true)
      })
      socket.once("error", () => resolve(false))
    })
    if (open) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`nothing listened on ${port}`)
}

/** Whether a process still exists. */
export const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Polls until `check` holds or the deadline passes; returns whether it held. */
export const eventually = async (check: () => boolean | Promise<boolean>, timeoutMs = 5_000) => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await check()) return true
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  return check()
}

export interface HttpPeer {
  readonly port: number
  /** `http://127.0.0.1:<port>` */
  readonly origin: string
  /** The current process's pid. */
  readonly pid: () => number
  /** SIGKILL, resolved once the process has exited (its port is free again). */
  readonly kill: () => Promise<void>
  /** Starts the same program again on the same port; resolves once it listens. */
  readonly start: () => Promise<void>
  /** The last lines the current process wrote on stderr (for failure messages). */
  readonly stderr: () => string
}

type Child = ChildProcessByStdio<null, Readable, Readable>

/**
 * Runs `node <args(port)>` and waits for the `listening <port>` line the peers print on stdout. With
 * port 0 the program picks one, and restarts reuse the port it reported.
 */
export const startHttpPeer = async (
  args: (port: number) => ReadonlyArray<string>,
  port = 0
): Promise<HttpPeer> => {
  let child: Child | undefined
  let lines: Array<string> = []
  let current = port
  const launch = () =>
    new Promise<void>((resolve, reject) => {
      lines = []
      const spawned: Child = spawn(process.execPath, [...args(current)], { stdio: ["ignore", "pipe", "pipe"] })
      child = spawned
      const timer = setTimeout(() => {
        spawned.kill("SIGKILL")
        reject(new Error(`the peer did not listen within 20 s:\n${lines.join("\n")}`))
      }, 20_000)
      spawned.stderr.on("data", (chunk: Buffer) => {
        lines.push(...chunk.toString().split("\n").filter((line) => line.length > 0))
        lines = lines.slice(-40)
      })
      spawned.stdout.on("data", (chunk: Buffer) => {
        const listening = /listening (\d+)/.exec(chunk.toString())?.[1]
        if (listening === undefined) return
        clearTimeout(timer)
        current = Number(listening)
        resolve()
      })
      spawned.once("error", (error) => {
        clearTimeout(timer)
        reject(error)
      })
      spawned.once("exit", (code, signal) => {
        clearTimeout(timer)
        reject(new Error(`the peer exited (${code ?? signal}) before listening:\n${lines.join("\n")}`))
      })
    })
  const kill = () =>
    new Promise<void>((resolve) => {
      const running = child
      child = undefined
      if (running === undefined || running.exitCode !== null || running.signalCode !== null) return resolve()
      running.once("exit", () => resolve())
      running.kill("SIGKILL")
    })
  await launch()
  return {
    get port() {
      return current
    },
    get origin() {
      return `http://127.0.0.1:${current}`
    },
    pid: () => child?.pid ?? -1,
    kill,
    start: launch,
    stderr: () => lines.join("\n")
  }
}

/** Runs `body` with the URL of a server-everything Streamable HTTP server, killed afterwards. */
export const withEverythingHttp = async <A>(body: (url: string) => Promise<A>): Promise<A> => {
  const port = await freePort()
  const server = spawn(process.execPath, [everythingBin, "streamableHttp"], {
    env: { ...process.env, PORT: String(port) },
    stdio: "ignore"
  })
  try {
    await waitForPort(port)
    return await body(`http://127.0.0.1:${port}/mcp`)
  } finally {
    server.kill("SIGKILL")
  }
}
