import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { Link, Route, Router, Switch, useLocation } from 'wouter-preact';
import { dashboardClient, type Mode } from './client.js';
import { DashboardContext, useDashboard, type DashboardState, type Organization } from './context.js';
import { describeError } from './errors.js';
import { DASHBOARD_BASE, loadSession, signInUrl, signOut, type Session } from './session.js';
import { KeysPage } from './pages/keys.js';
import { OrgsPage } from './pages/orgs.js';
import { DomainsPage } from './pages/domains.js';
import { DomainPage } from './pages/domain.js';
import { OperationsPage, OperationPage } from './pages/operations.js';
import { ContactsPage } from './pages/contacts.js';
import { BillingPage } from './pages/billing.js';
import { WebhooksPage } from './pages/webhooks.js';
import { CertificatesPage } from './pages/certificates.js';

const MODE_KEY = 'dashboard.mode';
const ORG_KEY = 'dashboard.org';

export function App() {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  useEffect(() => {
    loadSession().then((s) => setSession(s ?? null), setError);
  }, []);
  if (error) return <main class="container"><p class="error-note" role="alert">{describeError(error)}</p></main>;
  if (session === undefined) return <main class="container" aria-busy="true">Loading…</main>;
  if (session === null) return <SignIn />;
  return (
    <Router base={DASHBOARD_BASE}>
      <SignedIn session={session} />
    </Router>
  );
}

function SignIn() {
  return (
    <main class="container sign-in">
      <article>
        <header>
          <h1>Domain service</h1>
        </header>
        <p>Register domains, edit their DNS records, manage API keys and billing for your organisations.</p>
        <a role="button" href={signInUrl}>
          Sign in
        </a>
      </article>
    </main>
  );
}

function SignedIn({ session }: { session: Session }) {
  const [mode, setModeState] = useState<Mode>(() => (localStorage.getItem(MODE_KEY) === 'test' ? 'test' : 'live'));
  const [orgs, setOrgs] = useState<Organization[]>([]);
  const [orgId, setOrgId] = useState<string | null>(() => localStorage.getItem(ORG_KEY));
  const [loadError, setLoadError] = useState<unknown>(undefined);
  const client = useMemo(() => dashboardClient(session, mode), [session, mode]);

  const reloadOrgs = useCallback(async () => {
    try {
      const page = await client.listOrganizations({ query: { limit: 100 } });
      setOrgs(page.data);
      setLoadError(undefined);
    } catch (err) {
      setLoadError(err);
    }
  }, [client]);
  useEffect(() => void reloadOrgs(), [reloadOrgs]);

  const org = orgs.find((o) => o.id === orgId) ?? orgs[0];
  const state: DashboardState = {
    session,
    client,
    mode,
    setMode: (next) => {
      localStorage.setItem(MODE_KEY, next);
      setModeState(next);
    },
    orgs,
    org,
    selectOrg: (id) => {
      localStorage.setItem(ORG_KEY, id);
      setOrgId(id);
    },
    reloadOrgs,
  };

  return (
    <DashboardContext.Provider value={state}>
      <Header />
      {mode === 'test' ? (
        <div class="test-banner" role="status">
          Test data: you are seeing and changing test-mode objects only. Nothing is charged and no registrar is called.
        </div>
      ) : null}
      <main class="container">
        {loadError ? <p class="error-note" role="alert">{describeError(loadError)}</p> : null}
        <Switch>
          <Route path="/keys" component={KeysPage} />
          <Route path="/orgs" component={OrgsPage} />
          <Route path="/domains" component={DomainsPage} />
          <Route path="/domains/:name">{(params) => <DomainPage name={decodeURIComponent(params.name)} />}</Route>
          <Route path="/operations" component={OperationsPage} />
          <Route path="/operations/:id">{(params) => <OperationPage id={params.id} />}</Route>
          <Route path="/contacts" component={ContactsPage} />
          <Route path="/billing" component={BillingPage} />
          <Route path="/webhooks" component={WebhooksPage} />
          <Route path="/certificates" component={CertificatesPage} />
          <Route>
            <Home />
          </Route>
        </Switch>
      </main>
    </DashboardContext.Provider>
  );
}

const NAV = [
  ['/domains', 'Domains'],
  ['/operations', 'Operations'],
  ['/contacts', 'Contacts'],
  ['/billing', 'Billing'],
  ['/keys', 'API keys'],
  ['/webhooks', 'Webhooks'],
  ['/certificates', 'Certificates'],
  ['/orgs', 'Organisations'],
] as const;

function Header() {
  const state = useDashboard();
  const [location] = useLocation();
  const [signOutError, setSignOutError] = useState<unknown>(undefined);
  return (
    <header class="topbar">
      <nav class="container-fluid">
        <ul>
          <li>
            <Link href="/" class="brand">
              <strong>Domain service</strong>
            </Link>
          </li>
        </ul>
        <ul class="nav-tools">
          {state.orgs.length > 0 ? (
            <li>
              <select aria-label="Organisation" value={state.org?.id} onChange={(e) => state.selectOrg(e.currentTarget.value)}>
                {state.orgs.map((o) => (
                  <option key={o.id} value={o.id}>
                    {o.name}
                  </option>
                ))}
              </select>
            </li>
          ) : null}
          <li>
            <label class="mode-toggle">
              <input type="checkbox" role="switch" checked={state.mode === 'test'} onChange={(e) => state.setMode(e.currentTarget.checked ? 'test' : 'live')} />
              Test data
            </label>
          </li>
          <li>
            <details class="dropdown">
              <summary>{state.session.user.name ?? state.session.user.email}</summary>
              <ul dir="rtl">
                <li>
                  <small>{state.session.user.email}</small>
                </li>
                <li>
                  <button
                    type="button"
                    class="secondary small"
                    onClick={() => {
                      signOut(state.session).then(() => window.location.assign(`${DASHBOARD_BASE}/`), setSignOutError);
                    }}
                  >
                    Sign out
                  </button>
                </li>
              </ul>
            </details>
          </li>
        </ul>
      </nav>
      <nav class="container-fluid tabs" aria-label="Sections">
        <ul class="nav-links">
          {NAV.map(([href, label]) => (
            <li key={href}>
              <Link href={href} aria-current={location.startsWith(href) ? 'page' : undefined}>
                {label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      {signOutError ? <p class="error-note container">{describeError(signOutError)}</p> : null}
    </header>
  );
}

function Home() {
  const { org, session } = useDashboard();
  return (
    <section>
      <h1>Welcome, {session.user.name ?? session.user.email}</h1>
      {org ? (
        <p>
          Acting for <strong>{org.name}</strong>. Start with <Link href="/domains">Domains</Link> to check and register a name, or{' '}
          <Link href="/keys">API keys</Link> to give a script access.
        </p>
      ) : (
        <p>
          You do not belong to an organisation yet. <Link href="/orgs">Create one</Link> to register domains.
        </p>
      )}
    </section>
  );
}
