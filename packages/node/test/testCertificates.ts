/**
 * Test certificates made with `openssl` in a temporary directory (removed with the scope): a CA,
 * server certificates it signs, self-signed ones. A missing `openssl` fails the test saying what
 * to install.
 */
import * as Effect from "effect/Effect"
import { spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"

/** A certificate (PEM) and its key. */
export interface Identity {
  readonly cert: string
  readonly key: string
}

export interface TestCa {
  readonly dir: string
  /** The CA's certificate, PEM, and its file. */
  readonly ca: string
  readonly caFile: string
  /** A certificate for `subject` with the `subjectAltName` `san` (`DNS:…`, `IP:…`), signed by the CA. */
  readonly issue: (subject: string, san: string) => Identity
  /** A self-signed certificate for `subject` and `san`. */
  readonly selfSigned: (subject: string, san: string) => Identity
}

const openssl = (dir: string, args: ReadonlyArray<string>) => {
  const result = spawnSync("openssl", args, { cwd: dir, encoding: "utf8" })
  if (result.error !== undefined) {
    throw new Error(`these tests need the openssl command (apt-get install openssl): ${result.error.message}`)
  }
  if (result.status !== 0) throw new Error(`openssl ${args.join(" ")}: ${result.stderr}`)
}

// EC P-256 keys: made in milliseconds where RSA 2048 takes a good share of a second each.
const newKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
const days = ["-days", "2"]

const make = (dir: string): TestCa => {
  const read = (file: string) => Fs.readFileSync(Path.join(dir, file), "utf8")
  let serial = 0
  openssl(dir, ["req", "-x509", ...newKey, "-keyout", "ca.key", "-out", "ca.pem", ...days, "-subj", "/CN=test CA"])
  return {
    dir,
    ca: read("ca.pem"),
    caFile: Path.join(dir, "ca.pem"),
    issue: (subject, san) => {
      const name = `issued-${++serial}`
      openssl(dir, ["req", ...newKey, "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", `/CN=${subject}`])
      Fs.writeFileSync(Path.join(dir, `${name}.ext`), `subjectAltName=${san}\n`)
      openssl(dir, [
        ...["x509", "-req", "-in", `${name}.csr`, "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial"],
        ...["-out", `${name}.pem`, ...days, "-extfile", `${name}.ext`]
      ])
      return { cert: read(`${name}.pem`), key: read(`${name}.key`) }
    },
    selfSigned: (subject, san) => {
      const name = `self-${++serial}`
      openssl(dir, [
        ...["req", "-x509", ...newKey, "-keyout", `${name}.key`, "-out", `${name}.pem`, ...days],
        ...["-subj", `/CN=${subject}`, "-addext", `subjectAltName=${san}`]
      ])
      return { cert: read(`${name}.pem`), key: read(`${name}.key`) }
    }
  }
}

/** A test CA in a temporary directory of its own, removed with the scope. */
export const testCa = Effect.acquireRelease(
  Effect.sync(() => make(Fs.mkdtempSync(Path.join(Os.tmpdir(), "mcp-effect-ca-")))),
  ({ dir }) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
)
