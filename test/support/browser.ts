import { forwardedFrom, simulatedClientAddress } from './http.js';

/**
 * A browser without a screen, enough for sign-in flows: a cookie jar (host, Path, Max-Age=0
 * deletes), redirects followed by hand, and a record of every response it received, so a test can
 * check what a browser would ever have seen.
 */
export interface SeenResponse {
  url: string;
  status: number;
  headers: Headers;
  body: string;
}

interface StoredCookie {
  host: string;
  name: string;
  value: string;
  path: string;
  attributes: string[];
}

export class TestBrowser {
  private readonly jar: StoredCookie[] = [];
  readonly seen: SeenResponse[] = [];

  /** Where this browser is, to a test app behind its loopback proxy (test/support/http.ts). */
  constructor(readonly address = simulatedClientAddress()) {}

  /** One request, no redirects followed; cookies sent and stored as a browser would. */
  async request(url: string, init: RequestInit = {}): Promise<SeenResponse> {
    const target = new URL(url);
    const headers = new Headers(forwardedFrom(this.address, init).headers);
    const cookies = this.cookiesFor(target);
    if (cookies) headers.set('cookie', cookies);
    const res = await fetch(target, { ...init, headers, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) this.store(target, line);
    const seen = { url: target.href, status: res.status, headers: res.headers, body: await res.text() };
    this.seen.push(seen);
    return seen;
  }

  /** GETs `url` and follows redirects until a page answers (or `stopAt` matches the next URL). */
  async follow(url: string, init: RequestInit = {}, stopAt?: (next: URL) => boolean): Promise<SeenResponse> {
    let current = await this.request(url, init);
    for (let hops = 0; current.status >= 300 && current.status < 400; hops += 1) {
      if (hops > 10) throw new Error(`too many redirects from ${url}`);
      const next = new URL(current.headers.get('location')!, current.url);
      if (stopAt?.(next)) return current;
      current = await this.request(next.href);
    }
    return current;
  }

  cookie(host: string, name: string): StoredCookie | undefined {
    return this.jar.find((c) => c.host === host && c.name === name);
  }

  setCookie(host: string, name: string, value: string, path = '/'): void {
    this.remove(host, name);
    this.jar.push({ host, name, value, path, attributes: [] });
  }

  private cookiesFor(url: URL): string {
    return this.jar
      .filter((c) => c.host === url.hostname && (url.pathname === c.path || url.pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`)))
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
  }

  private remove(host: string, name: string): void {
    const index = this.jar.findIndex((c) => c.host === host && c.name === name);
    if (index >= 0) this.jar.splice(index, 1);
  }

  private store(url: URL, line: string): void {
    const [pair, ...attributes] = line.split(';').map((part) => part.trim());
    const [name, ...value] = pair!.split('=');
    const path = attributes.find((a) => a.toLowerCase().startsWith('path='))?.slice(5) ?? '/';
    this.remove(url.hostname, name!);
    if (attributes.some((a) => /^max-age=0$/i.test(a))) return;
    this.jar.push({ host: url.hostname, name: name!, value: value.join('='), path, attributes });
  }
}

/** The form's action on a development sign-in page. */
export function formAction(html: string, pageUrl: string): string {
  const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
  if (!action) throw new Error(`no sign-in form on ${pageUrl}: ${html.slice(0, 300)}`);
  return new URL(action.replace(/&amp;/g, '&'), pageUrl).href;
}

/**
 * Signs in through the development OpenID provider as a person would: opens /dashboard/login,
 * fills in the form, and follows the redirects back to the dashboard.
 */
export async function signInToDashboard(browser: TestBrowser, baseUrl: string, person: { email: string; name: string }): Promise<SeenResponse> {
  const form = await browser.follow(`${baseUrl}/dashboard/login`);
  if (form.status !== 200) throw new Error(`sign-in page answered ${form.status}: ${form.body.slice(0, 300)}`);
  const posted = await browser.request(formAction(form.body, form.url), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(person).toString(),
  });
  if (posted.status < 300 || posted.status >= 400) throw new Error(`sign-in form answered ${posted.status}: ${posted.body.slice(0, 300)}`);
  // Stop at the dashboard's own page: the callback's redirect is what a test looks at.
  return browser.follow(new URL(posted.headers.get('location')!, posted.url).href, {}, (next) => next.pathname === '/dashboard/');
}
