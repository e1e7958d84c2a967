/**
 * The name a stdio server gets from what it runs: the package, script or module behind a
 * launcher (`npx -y @scope/server-x` → `server-x`, `node dist/server.js` → `server`,
 * `uvx mcp-server-fetch` → `mcp-server-fetch`), else the command's own name.
 *
 * @internal
 */

/** How a launcher's command line reaches the program it runs. */
interface Launcher {
  /** Words that must follow the command for it to launch something (`npm exec`, `uv tool run`). */
  readonly verbs?: ReadonlyArray<ReadonlyArray<string>>
  /** Options whose value is the next word. */
  readonly valued?: ReadonlyArray<string>
  /** Options whose value is the program itself (`python -m module`). */
  readonly program?: ReadonlyArray<string>
  /** What else is an option here besides `-…` words (`cmd /c`, `env NAME=value`). */
  readonly option?: RegExp
}

const python: Launcher = { valued: ["-c", "-W", "-X", "--check-hash-based-pycs"], program: ["-m"] }
const script: Launcher = {
  valued: [
    "-e",
    "--eval",
    "-p",
    "--print",
    "-r",
    "--require",
    "--import",
    "--loader",
    "--experimental-loader",
    "--tsconfig"
  ]
}

const docker: Launcher = {
  verbs: [["run"], ["container", "run"]],
  valued: [
    "-e",
    "--env",
    "--env-file",
    "-v",
    "--volume",
    "--mount",
    "--name",
    "-p",
    "--publish",
    "-w",
    "--workdir",
    "-u",
    "--user",
    "--network",
    "--entrypoint",
    "-l",
    "--label",
    "--platform",
    "--pull",
    "-m",
    "--memory",
    "--cpus",
    "-h",
    "--hostname",
    "--add-host"
  ]
}

const launchers: Readonly<Record<string, Launcher>> = {
  npx: { valued: ["-p", "--package", "--cache", "--registry", "--userconfig"] },
  npm: { verbs: [["exec"], ["x"]], valued: ["-p", "--package", "-w", "--workspace", "--cache", "--registry"] },
  pnpm: { verbs: [["dlx"], ["exec"]], valued: ["--package", "-C", "--dir", "--filter"] },
  yarn: { verbs: [["dlx"], ["exec"]], valued: ["-p", "--package"] },
  bunx: { valued: ["-p", "--package"] },
  bun: { verbs: [["x"], ["run"], []], valued: ["-r", "--preload", "--cwd", "--env-file"] },
  deno: { verbs: [["run"]], valued: ["--config", "-c", "--import-map", "--env-file", "--lock"] },
  uvx: { valued: ["--from", "--with", "--with-requirements", "--python", "-p", "--index", "--index-url"] },
  uv: {
    verbs: [["tool", "run"], ["run"]],
    valued: ["--from", "--with", "--with-requirements", "--python", "-p", "--directory", "--project", "--env-file"]
  },
  pipx: { verbs: [["run"]], valued: ["--spec", "--python", "--index-url"] },
  docker,
  podman: docker,
  node: script,
  nodejs: script,
  tsx: script,
  "ts-node": script,
  python,
  python3: python,
  py: python,
  cmd: { option: /^\/\w$/ },
  env: { valued: ["-u", "--unset", "-C", "--chdir"], option: /^[A-Za-z_]\w*=/ }
}

/** A command's name on any platform, to look its launcher up: `C:\…\npx.cmd` → `npx`, `python3.12` → `python3`. */
const commandName = (command: string) =>
  (command.split(/[\\/]/).pop() ?? "").toLowerCase().replace(/\.(exe|cmd|bat|ps1)$/, "").replace(
    /^(python3)\.\d+$/,
    "$1"
  )

const SCRIPT = /\.(m?[jt]sx?|c[jt]s|py[zw]?|sh|exe|cmd|bat|ps1)$/i
/** A version, tag, digest or extras after a package or image name (`@1.2`, `:latest`, `[cli]==2`). */
const SUFFIX = /(?<=.)[@:[=<>!~;].*$/
/** Script names that say nothing: the project folder above says what the server is. */
const GENERIC = new Set(["index", "main", "__main__"])
/** Build and source folders, skipped on the way up to the project folder. */
const PLUMBING = new Set(["dist", "build", "out", "lib", "src", "bin", "esm", "cjs"])

/**
 * The package, image, module or script a program word names, without scope, version, tag or
 * extension: `@scope/server-x@1.2` → `server-x`, `ghcr.io/o/image:tag` → `image`,
 * `./dist/server.js` → `server`, `/srv/weather/dist/index.js` → `weather`.
 */
const programName = (word: string): string => {
  const segments = word.replace(/^(npm|jsr):/, "").split(/[\\/]/).filter((s) => !["", ".", ".."].includes(s))
  const file = (segments.pop() ?? "").replace(SUFFIX, "")
  const stem = file.replace(SCRIPT, "")
  if (stem === file || !GENERIC.has(stem)) return stem
  return segments.reverse().find((segment) => !PLUMBING.has(segment)) ?? stem
}

/** Where the launcher's program word is, after its verbs and options; -1 when there is none. */
const programIndex = (argv: ReadonlyArray<string>, launcher: Launcher): number => {
  const verbs = launcher.verbs?.find((verb) => verb.every((word, i) => argv[i + 1] === word))
  if (launcher.verbs !== undefined && verbs === undefined) return -1
  for (let i = 1 + (verbs?.length ?? 0); i < argv.length; i++) {
    const word = argv[i]!
    if (word === "--") return i + 1 < argv.length ? i + 1 : -1
    if (launcher.program?.includes(word) === true) return i + 1 < argv.length ? i + 1 : -1
    if (launcher.valued?.includes(word) === true) i++
    else if (!word.startsWith("-") && launcher.option?.test(word) !== true) return i
  }
  return -1
}

const NAME_UNSAFE = /[^\w.-]+/g

/**
 * The default name of a stdio server running `argv`: the program behind its launchers (the
 * command itself when it is none), reduced to letters, digits, `.`, `_` and `-`.
 *
 * @internal
 */
export const fromArgv = (argv: ReadonlyArray<string>): string => {
  let rest = argv
  for (;;) {
    const launcher = launchers[commandName(rest[0] ?? "")]
    const index = launcher === undefined ? -1 : programIndex(rest, launcher)
    if (index === -1) break
    const module = launcher?.program?.includes(rest[index - 1]!) === true
    rest = rest.slice(index)
    // `python -m x` names a module, never a path or a launcher.
    if (module) return safe(rest[0]!)
  }
  return safe(programName(rest[0] ?? ""))
}

const safe = (name: string): string => name.replace(NAME_UNSAFE, "-").replace(/^-+|-+$/g, "") || "server"
