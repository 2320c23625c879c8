import { useState } from 'preact/hooks';
import type { components } from '../../../client/src/index.js';
import { useDashboard } from '../context.js';
import { ErrorNote } from '../errors.js';
import { formatDate, lines } from '../format.js';
import { useAction, useCursorPages, useLoad } from '../hooks.js';
import { ActionsHeader, ConfirmButton, Empty, Field, NeedsOrganisation, Pager, TableScroll } from '../components/ui.js';
import { SecretOnce } from '../components/secretOnce.js';

type Credentials = components['schemas']['AcmeDnsCredentials'];

/**
 * Certificates through DNS-01 (docs/certificates.md): where an ACME client sends lego's httpreq
 * calls, and the organisation's ACME-DNS registrations (register, with the credential shown once;
 * list; delete).
 */
export function CertificatesPage() {
  const { client, org } = useDashboard();
  const pages = useCursorPages([org?.id, client]);
  const registrations = useLoad(
    (signal) =>
      org
        ? client.listAcmeDnsRegistrations({ path: { org_oid: org.id }, query: { limit: 20, ...(pages.cursor ? { cursor: pages.cursor } : {}) } }, { signal })
        : Promise.resolve(undefined),
    [client, org?.id, pages.cursor],
  );
  const [created, setCreated] = useState<Credentials | undefined>(undefined);
  const remove = useAction();
  if (!org) return <NeedsOrganisation />;

  return (
    <section>
      <h1>Certificates</h1>
      <p>
        ACME clients (lego, Caddy, cert-manager, certbot) prove they control a name with a DNS-01 challenge: a TXT record at{' '}
        <code>_acme-challenge.&lt;name&gt;</code>. Give them a key made with the <strong>Certificates</strong> preset on the API keys page: it can change
        those records and nothing else.
      </p>
      <p>
        For domains hosted here, lego’s <code>httpreq</code> provider takes <code data-testid="httpreq-endpoint">{`${window.location.origin}/api/v1/orgs/${org.id}/acme/httpreq`}</code>{' '}
        as <code>HTTPREQ_ENDPOINT</code>, with the key as <code>HTTPREQ_PASSWORD</code>. For domains hosted anywhere, register an ACME-DNS name below and
        point <code>_acme-challenge.&lt;your domain&gt;</code> at it with a CNAME.
      </p>
      {created ? (
        <SecretOnce
          label="ACME-DNS credentials"
          title={`Registered ${created.fulldomain}`}
          secret={JSON.stringify({ username: created.username, password: created.password, fulldomain: created.fulldomain, subdomain: created.subdomain, allowfrom: created.allowfrom })}
          testId="acme-dns-credentials"
          warning={`Copy these credentials now into your ACME client's account file or secret (cert-manager's acmedns solver, lego's ACME_DNS_STORAGE_PATH): the password is shown only this once. Then add the record _acme-challenge.<your domain> CNAME ${created.fulldomain}.`}
          onDone={() => setCreated(undefined)}
        />
      ) : null}
      <RegisterForm
        orgId={org.id}
        onRegistered={(registration) => {
          setCreated(registration);
          registrations.reload();
        }}
      />
      <h2>ACME-DNS registrations</h2>
      <ErrorNote error={registrations.error ?? remove.error} />
      {registrations.data && registrations.data.data.length === 0 ? <Empty>No registrations yet.</Empty> : null}
      {registrations.data && registrations.data.data.length > 0 ? (
        <TableScroll label="ACME-DNS registrations">
          <table class="striped" aria-label="ACME-DNS registrations">
            <thead>
              <tr>
                <th>Name (CNAME target)</th>
                <th>User name</th>
                <th>Allowed from</th>
                <th>Last update</th>
                <th>Created</th>
                <ActionsHeader />
              </tr>
            </thead>
            <tbody>
              {registrations.data.data.map((registration) => (
                <tr key={registration.id}>
                  <td>
                    <code>{registration.fulldomain}</code>
                  </td>
                  <td>
                    <code>{registration.username}</code>
                  </td>
                  <td>{registration.allowfrom.length === 0 ? 'anywhere' : registration.allowfrom.join(', ')}</td>
                  <td>{registration.txt_updated_at ? formatDate(registration.txt_updated_at) : 'never'}</td>
                  <td>{formatDate(registration.created_at)}</td>
                  <td>
                    <ConfirmButton
                      label="Delete"
                      question={`Delete ${registration.fulldomain}? Clients using it can no longer answer challenges.`}
                      busy={remove.busy}
                      onConfirm={() =>
                        void remove.run(() => client.deleteAcmeDnsRegistration({ path: { org_oid: org.id, registration_id: registration.id } })).then(registrations.reload)
                      }
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      ) : null}
      <Pager page={pages.page} nextCursor={registrations.data?.next_cursor} onNext={pages.next} onPrevious={pages.previous} />
    </section>
  );
}

function RegisterForm(props: { orgId: string; onRegistered: (registration: Credentials) => void }) {
  const { client } = useDashboard();
  const [allowfrom, setAllowfrom] = useState('');
  const register = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const registration = await register.run(() => client.registerAcmeDns({ path: { org_oid: props.orgId }, body: { allowfrom: lines(allowfrom) } }));
    if (registration) {
      setAllowfrom('');
      props.onRegistered(registration);
    }
  };
  return (
    <article>
      <header>
        <strong>New ACME-DNS registration</strong>
      </header>
      <form onSubmit={(e) => void submit(e)} aria-label="New ACME-DNS registration">
        <Field label="Allowed from" hint="CIDRs your ACME client updates from, one a line; empty: anywhere">
          <textarea name="allowfrom" rows={2} placeholder="203.0.113.0/24" value={allowfrom} onInput={(e) => setAllowfrom(e.currentTarget.value)} />
        </Field>
        <ErrorNote error={register.error} />
        <button type="submit" aria-busy={register.busy ? 'true' : undefined} disabled={register.busy}>
          Register
        </button>
      </form>
    </article>
  );
}
