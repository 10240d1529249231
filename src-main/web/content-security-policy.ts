/**
 * The renderer's Content-Security-Policy, shared by the Electron protocol handler and the web host.
 * Scripts and styles come only from our own bundle; model output can never run script or load
 * remote content. Images allow data:/blob: for inline generated images.
 */
export function contentSecurityPolicy({ connect = [] }: { connect?: string[] } = {}): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    `connect-src ${["'self'", ...connect].join(' ')}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "object-src 'none'",
  ].join('; ')
}
