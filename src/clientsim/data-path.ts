// Path handling copied in behaviour from WC's A2uiMessageProcessor (v0.8), not from RFC 6901:
// `.`, `/` and `[n]` all separate segments, the leading `/` is optional and there are no
// `~0`/`~1` escapes (a2ui-v0.8.md §4.4 F4).

/** WC `normalizePath`: `a[0].b` and `a.0.b` → `/a/0/b`; always starts with `/`. */
export function normalizePath(path: string): string {
  const dotPath = path.replace(/\[(\d+)\]/g, '.$1');
  return '/' + dotPath.split('.').filter((s) => s.length > 0).join('/');
}

export function pathSegments(path: string): string[] {
  return normalizePath(path).split('/').filter((s) => s.length > 0);
}

/** WC `resolvePath`: absolute paths win, otherwise join onto the data context. */
export function resolvePath(path: string, dataContextPath: string | undefined): string {
  if (path.startsWith('/')) return path;
  if (dataContextPath !== undefined && dataContextPath !== '' && dataContextPath !== '/') {
    return dataContextPath.endsWith('/') ? `${dataContextPath}${path}` : `${dataContextPath}/${path}`;
  }
  return `/${path}`;
}

/** WC `getData`/`setData` path choice: `.` and `` mean the node's own context. */
export function nodeDataPath(relativePath: string, dataContextPath: string): string {
  if (relativePath === '.' || relativePath === '') return dataContextPath;
  return resolvePath(relativePath, dataContextPath);
}

/**
 * WC rewrites every `path` inside a template instance before anything reads it (§4.5),
 * including its prefix bug (`/textColor` → `Color`); reproduced verbatim so ClientSim resolves
 * exactly what a renderer would.
 */
export function rewriteTemplatePath(path: string): string {
  return path
    .replace(/^\.?\/item/, '')
    .replace(/^\.?\/text/, '')
    .replace(/^\.?\/label/, '')
    .replace(/^\.?\//, '');
}
