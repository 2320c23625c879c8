/** Whether a URL's host is this machine: the one place plain HTTP may carry a token (the development API, or one in a test). */
export function isLoopback(url: URL): boolean {
  return ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname) || url.hostname.startsWith('127.');
}
