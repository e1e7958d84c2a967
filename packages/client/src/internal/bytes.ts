/**
 * Joining the chunks of a body or a stream read piecewise.
 *
 * @internal
 */

/** The chunks as one array of `total` bytes (their summed length); a lone chunk is returned as is. */
export const concatBytes = (chunks: ReadonlyArray<Uint8Array>, total: number): Uint8Array => {
  if (chunks.length === 1) return chunks[0]!
  const bytes = new Uint8Array(total)
  let offset = 0
  for (const chunk of chunks) {
    bytes.set(chunk, offset)
    offset += chunk.length
  }
  return bytes
}
