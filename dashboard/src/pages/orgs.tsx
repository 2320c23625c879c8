import { useState } from 'preact/hooks';
import type { components } from '../../../client/src/index.js';
import { useDashboard } from '../context.js';
import { ErrorNote, fieldError } from '../errors.js';
import { formatDate } from '../format.js';
import { useAction, useCursorPages, useLoad } from '../hooks.js';
import { ActionsHeader, ConfirmButton, Empty, Field, Pager, TableScroll } from '../components/ui.js';
import { CopyableId } from '../components/copyableId.js';
import { DomainMoves } from './domainMoves.js';
import { AuditLog } from './auditLog.js';

type Role = components['schemas']['Member']['role'];

export function OrgsPage() {
  const { client, orgs, org, selectOrg, reloadOrgs } = useDashboard();
  const [name, setName] = useState('');
  const create = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const created = await create.run(() => client.createOrganization({ body: { name } }));
    if (created) {
      setName('');
      await reloadOrgs();
      selectOrg(created.id);
    }
  };
  return (
    <section>
      <h1>Organisations</h1>
      <Invitations />
      <TableScroll label="Organisations">
        <table class="striped" aria-label="Organisations">
          <thead>
            <tr>
              <th>Name</th>
              <th>Your role</th>
              <th>Plan</th>
              <ActionsHeader />
            </tr>
          </thead>
          <tbody>
            {orgs.map((o) => (
              <tr key={o.id}>
                <td>{o.name}</td>
                <td>{o.role ?? '—'}</td>
                <td>{o.plan}</td>
                <td>{o.id === org?.id ? <strong>Current</strong> : <button type="button" class="secondary outline small" onClick={() => selectOrg(o.id)}>Switch to</button>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      <form class="inline-form" onSubmit={(e) => void submit(e)} aria-label="New organisation">
        <Field label="New organisation" error={fieldError(create.error, 'name')}>
          <input name="org-name" value={name} required placeholder="Acme Inc." onInput={(e) => setName(e.currentTarget.value)} />
        </Field>
        <button type="submit" aria-busy={create.busy ? 'true' : undefined}>
          Create
        </button>
      </form>
      <ErrorNote error={fieldError(create.error, 'name') ? undefined : create.error} />
      {org ? <OrgIdentity key={org.id} orgId={org.id} orgName={org.name} /> : null}
      {org ? <Members orgId={org.id} orgName={org.name} /> : null}
      {org ? <DomainMoves orgId={org.id} canDecide={org.role === 'owner' || org.role === 'admin'} /> : null}
      {org && (org.role === 'owner' || org.role === 'admin') ? <AuditLog orgId={org.id} orgName={org.name} /> : null}
    </section>
  );
}

/** The current organisation's id, for someone who moves a domain to it (they name it by its id). */
function OrgIdentity({ orgId, orgName }: { orgId: string; orgName: string }) {
  return (
    <article aria-label={`Settings of ${orgName}`}>
      <header>
        <strong>{orgName}</strong>
      </header>
      <CopyableId label="Organisation id" value={orgId} />
      <p>To receive a domain from another organisation (an agency handing over a client's domain, say), give its owners this id: they propose the move to it, and an owner or admin here accepts it below.</p>
    </article>
  );
}

function Invitations() {
  const { client, reloadOrgs } = useDashboard();
  const invitations = useLoad((signal) => client.listMyInvitations(undefined, { signal }), [client]);
  const accept = useAction();
  if (!invitations.data || invitations.data.data.length === 0) return null;
  return (
    <article>
      <header>
        <strong>Invitations for you</strong>
      </header>
      <ErrorNote error={accept.error} />
      <ul>
        {invitations.data.data.map((inv) => (
          <li key={inv.invitation_id}>
            {inv.org_name} as {inv.role}{' '}
            <button
              type="button"
              class="small"
              onClick={() =>
                void accept.run(() => client.acceptInvitation({ path: { invitation_id: inv.invitation_id } })).then(async (done) => {
                  if (done) {
                    invitations.reload();
                    await reloadOrgs();
                  }
                })
              }
            >
              Join
            </button>
          </li>
        ))}
      </ul>
    </article>
  );
}

function Members({ orgId, orgName }: { orgId: string; orgName: string }) {
  const { client } = useDashboard();
  const pages = useCursorPages([orgId]);
  const members = useLoad(
    (signal) => client.listMembers({ path: { org_oid: orgId }, query: { limit: 50, ...(pages.cursor ? { cursor: pages.cursor } : {}) } }, { signal }),
    [client, orgId, pages.cursor],
  );
  const change = useAction();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<'admin' | 'member'>('member');
  const [invited, setInvited] = useState<string | undefined>(undefined);
  const invite = useAction();

  const submitInvite = async (event: Event) => {
    event.preventDefault();
    const done = await invite.run(() => client.inviteMember({ path: { org_oid: orgId }, body: { email, role } }));
    if (done) {
      setInvited(`Invitation sent to ${done.email}; it is valid until ${formatDate(done.expires_at)}.`);
      setEmail('');
    }
  };

  return (
    <>
      <h2>Members of {orgName}</h2>
      <ErrorNote error={members.error ?? change.error} />
      {members.data && members.data.data.length === 0 ? <Empty>No members.</Empty> : null}
      <TableScroll label="Members">
        <table class="striped" aria-label="Members">
          <thead>
            <tr>
              <th>E-mail</th>
              <th>Name</th>
              <th>Role</th>
              <ActionsHeader />
            </tr>
          </thead>
          <tbody>
            {(members.data?.data ?? []).map((m) => (
              <tr key={m.user_id}>
                <td>{m.email ?? '—'}</td>
                <td>{m.name ?? '—'}</td>
                <td>
                  <select
                    aria-label={`Role of ${m.email ?? m.user_id}`}
                    value={m.role}
                    onChange={(e) => {
                      const next = e.currentTarget.value as Role;
                      void change.run(() => client.changeMemberRole({ path: { org_oid: orgId, user_id: m.user_id }, body: { role: next } })).then(members.reload);
                    }}
                  >
                    <option value="owner">owner</option>
                    <option value="admin">admin</option>
                    <option value="member">member</option>
                  </select>
                </td>
                <td>
                  <ConfirmButton
                    label="Remove"
                    confirmLabel="Yes, remove"
                    question={`Remove ${m.email ?? 'this member'} from ${orgName}?`}
                    onConfirm={() => void change.run(() => client.removeMember({ path: { org_oid: orgId, user_id: m.user_id } })).then(members.reload)}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      <Pager page={pages.page} nextCursor={members.data?.next_cursor} onNext={pages.next} onPrevious={pages.previous} />
      <form class="inline-form" onSubmit={(e) => void submitInvite(e)} aria-label="Invite a member">
        <Field label="Invite by e-mail" error={fieldError(invite.error, 'email')}>
          <input type="email" name="invite-email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        </Field>
        <Field label="Role">
          <select name="invite-role" value={role} onChange={(e) => setRole(e.currentTarget.value as 'admin' | 'member')}>
            <option value="member">member</option>
            <option value="admin">admin</option>
          </select>
        </Field>
        <button type="submit" aria-busy={invite.busy ? 'true' : undefined}>
          Invite
        </button>
      </form>
      <ErrorNote error={fieldError(invite.error, 'email') ? undefined : invite.error} />
      {invited ? <p role="status">{invited}</p> : null}
    </>
  );
}
