/**
 * The doctor's network steps: DNS, TCP and TLS, with Node's own resolver and sockets (the same
 * the HTTP client uses), each with what a failure most likely means.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Dns from "node:dns/promises"
import * as Net from "node:net"
import * as Tls from "node:tls"
import type { Outcome } from "./step.js"
import { errorCode, ok, safe } from "./step.js"

/** The host of a URL as Node's APIs take it (`[::1]` → `::1`). */
export const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, "$1")

/** The port of a URL, its scheme's default when none is written. */
export const portOf = (url: URL): number => url.port !== "" ? Number(url.port) : url.protocol === "https:" ? 443 : 80

/** @internal */
export const dns = (url: URL): Effect.Effect<{ readonly outcome: Outcome; readonly address: string }, unknown> =>
  Effect.map(
    Effect.tryPromise(() => Dns.lookup(hostOf(url), { all: true })),
    (addresses) => ({
      outcome: ok(`${safe(hostOf(url))} → ${addresses.map((a) => a.address).join(", ")}`),
      address: addresses[0]!.address
    })
  )

/** @internal */
export const dnsHint = (error: unknown): string =>
  errorCode(error) === "ENOTFOUND"
    ? "the name does not resolve: check its spelling, your DNS or VPN, and /etc/hosts"
    : "the resolver did not answer: check the network and the DNS servers in use"

/** @internal */
export const tcp = (address: string, port: number): Effect.Effect<Outcome, unknown> =>
  Effect.async<Outcome, unknown>((resume) => {
    const socket = Net.connect({ host: address, port })
    socket.once("connect", () => {
      socket.destroy()
      resume(Effect.succeed(ok(`connected to ${address}:${port}`)))
    })
    socket.once("error", (error) => resume(Effect.fail(error)))
    return Effect.sync(() => socket.destroy())
  })

/** @internal */
export const tcpHint = (address: string, port: number) => (error: unknown): string => {
  switch (errorCode(error)) {
    case "ECONNREFUSED":
      return `nothing listens on ${address}:${port}: is the server running, and on this port?`
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return "no route to the host: check the network, a VPN, or the address"
    default:
      return "the connection did not open: a firewall may drop it, or the server is overloaded"
  }
}

const certificateText = (certificate: Tls.PeerCertificate): string => {
  const subject = certificate.subject?.CN ?? "(no common name)"
  const issuer = certificate.issuer?.CN ?? "(no issuer name)"
  return safe(`certificate for ${String(subject)} by ${String(issuer)}, valid until ${certificate.valid_to}`)
}

/** @internal */
export const tls = (address: string, url: URL): Effect.Effect<Outcome, unknown> =>
  Effect.async<Outcome, unknown>((resume) => {
    const host = hostOf(url)
    const socket = Tls.connect({
      host: address,
      port: portOf(url),
      ...(Net.isIP(host) === 0 ? { servername: host } : {})
    })
    socket.once("secureConnect", () => {
      const certificate = socket.getPeerCertificate()
      socket.destroy()
      resume(Effect.succeed(ok(`${socket.getProtocol() ?? "TLS"}, ${certificateText(certificate)}`)))
    })
    socket.once("error", (error) => resume(Effect.fail(error)))
    return Effect.sync(() => socket.destroy())
  })

/** @internal */
export const tlsHint = (error: unknown): string => {
  const code = errorCode(error) ?? ""
  if (code === "ERR_TLS_CERT_ALTNAME_INVALID") {
    return "the certificate is for another name: use the name it was issued for"
  }
  if (code === "CERT_HAS_EXPIRED") return "the certificate has expired: the server's operator must renew it"
  if (/SELF_SIGNED|UNABLE_TO_GET_ISSUER|UNABLE_TO_VERIFY|LOCAL_ISSUER/.test(code)) {
    return "the certificate is not from a trusted authority: trust its CA with NODE_EXTRA_CA_CERTS=ca.pem"
  }
  if (code === "ECONNRESET" || /WRONG_VERSION_NUMBER|PACKET_LENGTH/.test(code)) {
    return "the port does not speak TLS: try http:// instead of https://, or check the port"
  }
  return "the TLS handshake failed: check the URL's scheme and port"
}
