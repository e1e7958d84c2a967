// Installs redis-server before any test runs when it is missing, or fails the run saying how to
// install it (never a skip).
import { redisServerBinary } from "./redisServer.js"

export default function setup() {
  redisServerBinary()
}
