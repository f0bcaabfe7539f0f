/**
 * What ids look like where they name something in a URL path. Checked where values arrive (button
 * values, private_metadata) and again by the client before any request.
 */

/**
 * An id that may stand as one path segment: letters, digits, `-` and `_`, starting with a letter
 * or digit. Platform ids (attack guids, Kubernetes uids, team, role and monitor ids) all fit;
 * `.`, `..`, `/`, `%`, `?` and `#` never do, so no id can change which endpoint a path names.
 */
const pathIdPattern = /^[0-9A-Za-z][0-9A-Za-z_-]{0,127}$/;

export function isPathId(value: unknown): value is string {
  return typeof value === 'string' && pathIdPattern.test(value);
}
