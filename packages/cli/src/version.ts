/**
 * The version the CLI reports.
 *
 * @since 0.1.0
 */

/**
 * @since 0.1.0
 * @category constants
 */
export const version = "0.1.0"
