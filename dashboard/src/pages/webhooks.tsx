import { useState } from 'preact/hooks';
import { eventTypes, type components } from '../../../client/src/index.js';
import { useDashboard } from '../context.js';
import { ErrorNote, fieldError } from '../errors.js';
import { formatDate } from '../format.js';
import { useAction, useCursorPages, useLoad } from '../hooks.js';
import { ActionsHeader, ConfirmButton, Empty, Field, NeedsOrganisation, Pager, StatusBadge, TableScroll } from '../components/ui.js';
import { SecretOnce } from '../components/secretOnce.js';

type Endpoint = components['schemas']['WebhookEndpoint'];
type EventType = components['schemas']['CreateWebhookEndpointInput']['events'][number];
interface ShownSecret {
  title: string;
  secret: string;
  rotated: boolean;
}


const SECRET_WARNING =
  'Copy this signing secret now and store it in a secrets manager: your receiver needs it to check the webhook-signature header. It is shown only this once.';

export function WebhooksPage() {
  const { client, org } = useDashboard();
  const pages = useCursorPages([org?.id, client]);
  const endpoints = useLoad(
    (signal) =>
      org ? client.listWebhookEndpoints({ path: { org_oid: org.id }, query: { limit: 20, ...(pages.cursor ? { cursor: pages.cursor } : {}) } }, { signal }) : Promise.resolve(undefined),
    [client, org?.id, pages.cursor],
  );
  const [shown, setShown] = useState<ShownSecret | undefined>(undefined);
  const [opened, setOpened] = useState<string | undefined>(undefined);
  if (!org) return <NeedsOrganisation />;

  return (
    <section>
      <h1>Webhooks</h1>
      <p>
        The service POSTs events (operations finishing, domains expiring, …) to your endpoints, signed per the Standard Webhooks specification. Only owners and admins
        can add or change endpoints. An endpoint belongs to the current mode: turn on "Test data" for test-mode events.
      </p>
      {shown ? (
        <SecretOnce
          label="Webhook signing secret"
          title={shown.title}
          secret={shown.secret}
          testId="webhook-secret"
          warning={shown.rotated ? `${SECRET_WARNING} The previous secret keeps signing as well for 24 hours, so switch your receiver over within that time.` : SECRET_WARNING}
          onDone={() => setShown(undefined)}
        />
      ) : null}
      <CreateEndpointForm
        orgId={org.id}
        onCreated={(created) => {
          setShown({ title: `Endpoint ${created.url} created`, secret: created.secret, rotated: false });
          endpoints.reload();
        }}
      />
      <h2>Endpoints</h2>
      <ErrorNote error={endpoints.error} />
      {endpoints.data && endpoints.data.data.length === 0 ? <Empty>No endpoints yet.</Empty> : null}
      {(endpoints.data?.data ?? []).map((endpoint) => (
        <EndpointCard
          key={endpoint.id}
          orgId={org.id}
          endpoint={endpoint}
          open={opened === endpoint.id}
          onToggleOpen={() => setOpened(opened === endpoint.id ? undefined : endpoint.id)}
          onChanged={endpoints.reload}
          onRotated={(secret) => setShown({ title: `New secret for ${endpoint.url}`, secret, rotated: true })}
        />
      ))}
      <Pager page={pages.page} nextCursor={endpoints.data?.next_cursor} onNext={pages.next} onPrevious={pages.previous} />
    </section>
  );
}

function CreateEndpointForm(props: { orgId: string; onCreated: (created: components['schemas']['WebhookEndpointWithSecret']) => void }) {
  const { client } = useDashboard();
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [all, setAll] = useState(true);
  const [events, setEvents] = useState<Set<EventType>>(new Set());
  const create = useAction();

  const toggle = (type: EventType, on: boolean) => {
    const next = new Set(events);
    if (on) next.add(type);
    else next.delete(type);
    setEvents(next);
  };
  const submit = async (event: Event) => {
    event.preventDefault();
    const body = { url, events: all ? (['*'] as EventType[]) : [...events], ...(description ? { description } : {}) };
    const created = await create.run(() => client.createWebhookEndpoint({ path: { org_oid: props.orgId }, body }));
    if (created) {
      setUrl('');
      setDescription('');
      props.onCreated(created);
    }
  };
  const urlError = fieldError(create.error, 'url');
  return (
    <article>
      <header>
        <strong>New endpoint</strong>
      </header>
      <form onSubmit={(e) => void submit(e)} aria-label="New webhook endpoint">
        <div class="grid">
          <Field label="Endpoint URL" error={urlError}>
            <input name="url" type="url" value={url} required placeholder="https://example.com/hooks" aria-invalid={urlError ? 'true' : undefined} onInput={(e) => setUrl(e.currentTarget.value)} />
          </Field>
          <Field label="Description">
            <input name="description" value={description} maxLength={200} placeholder="optional" onInput={(e) => setDescription(e.currentTarget.value)} />
          </Field>
        </div>
        <fieldset>
          <legend>Events</legend>
          <label>
            <input type="checkbox" role="switch" name="all-events" checked={all} onChange={(e) => setAll(e.currentTarget.checked)} />
            All events
          </label>
          {all ? null : (
            <div class="scope-grid">
              {eventTypes.map((type) => (
                <label key={type}>
                  <input type="checkbox" name="event" value={type} checked={events.has(type)} onChange={(e) => toggle(type, e.currentTarget.checked)} />
                  {type}
                </label>
              ))}
            </div>
          )}
        </fieldset>
        <ErrorNote error={create.error && !urlError ? create.error : undefined} />
        <button type="submit" aria-busy={create.busy ? 'true' : undefined} disabled={create.busy || (!all && events.size === 0)}>
          Add endpoint
        </button>
      </form>
    </article>
  );
}

function EndpointCard(props: { orgId: string; endpoint: Endpoint; open: boolean; onToggleOpen: () => void; onChanged: () => void; onRotated: (secret: string) => void }) {
  const { client } = useDashboard();
  const { endpoint } = props;
  const action = useAction();
  const [pinged, setPinged] = useState(false);
  const path = { org_oid: props.orgId, endpoint_id: endpoint.id };

  const setEnabled = (enabled: boolean) => void action.run(() => client.updateWebhookEndpoint({ path, body: { enabled } })).then(props.onChanged);
  const rotate = async () => {
    const rotated = await action.run(() => client.rotateWebhookSecret({ path }));
    if (rotated) {
      props.onRotated(rotated.secret);
      props.onChanged();
    }
  };
  const ping = async () => {
    setPinged(false);
    if ((await action.run(() => client.sendWebhookTest({ path }))) !== undefined) setPinged(true);
  };

  return (
    <article class="webhook-endpoint" aria-label={`Endpoint ${endpoint.url}`}>
      <header>
        <code>{endpoint.url}</code> <StatusBadge status={endpoint.enabled ? 'enabled' : 'disabled'} />
        {endpoint.description ? <small> {endpoint.description}</small> : null}
      </header>
      <p>
        Events: <span class="scopes">{endpoint.events.includes('*') ? 'all events' : endpoint.events.join(', ')}</span>
        {endpoint.disabled_reason ? <small class="field-error"> Turned off by the service: {endpoint.disabled_reason}</small> : null}
        {endpoint.secret_rotated_until ? <small> The previous secret signs as well until {formatDate(endpoint.secret_rotated_until)}.</small> : null}
      </p>
      <div class="confirm">
        <button type="button" class="secondary outline small" onClick={() => setEnabled(!endpoint.enabled)}>
          {endpoint.enabled ? 'Disable' : 'Enable'}
        </button>
        <button type="button" class="secondary outline small" onClick={() => void ping()}>
          Send test ping
        </button>
        <ConfirmButton
          label="Rotate secret"
          question="Make a new signing secret? The old one keeps signing for 24 hours."
          confirmLabel="Yes, rotate"
          busy={action.busy}
          onConfirm={() => void rotate()}
        />
        <ConfirmButton
          label="Delete"
          question={`Delete the endpoint ${endpoint.url}? No more events are sent to it.`}
          busy={action.busy}
          onConfirm={() => void action.run(() => client.deleteWebhookEndpoint({ path })).then(props.onChanged)}
        />
        <button type="button" class="secondary outline small" aria-expanded={props.open ? 'true' : 'false'} onClick={props.onToggleOpen}>
          {props.open ? 'Hide deliveries' : 'Deliveries'}
        </button>
      </div>
      {pinged ? <p role="status">Test ping queued: it shows under Deliveries once sent.</p> : null}
      <ErrorNote error={action.error} />
      {props.open ? <Deliveries orgId={props.orgId} endpoint={endpoint} /> : null}
    </article>
  );
}

function Deliveries(props: { orgId: string; endpoint: Endpoint }) {
  const { client } = useDashboard();
  const path = { org_oid: props.orgId, endpoint_id: props.endpoint.id };
  const pages = useCursorPages([props.endpoint.id, client]);
  const deliveries = useLoad(
    (signal) => client.listWebhookDeliveries({ path, query: { limit: 20, ...(pages.cursor ? { cursor: pages.cursor } : {}) } }, { signal }),
    [client, props.endpoint.id, pages.cursor],
  );
  const retry = useAction();
  const [retried, setRetried] = useState(false);
  return (
    <div>
      <button type="button" class="secondary outline small" onClick={deliveries.reload}>
        Refresh deliveries
      </button>
      <ErrorNote error={deliveries.error ?? retry.error} />
      {retried ? <p role="status">Retry queued.</p> : null}
      {deliveries.data && deliveries.data.data.length === 0 ? <Empty>No deliveries yet.</Empty> : null}
      {deliveries.data && deliveries.data.data.length > 0 ? (
        <TableScroll label={`Deliveries to ${props.endpoint.url}`}>
          <table class="striped" aria-label={`Deliveries to ${props.endpoint.url}`}>
            <thead>
              <tr>
                <th>Time</th>
                <th>Event</th>
                <th>Attempt</th>
                <th>Status</th>
                <th>Duration</th>
                <th>Error</th>
                <ActionsHeader />
              </tr>
            </thead>
            <tbody>
              {deliveries.data.data.map((delivery) => (
                <tr key={delivery.id}>
                  <td>{formatDate(delivery.created_at)}</td>
                  <td>
                    <code>{delivery.event_id}</code>
                  </td>
                  <td>{delivery.attempt}</td>
                  <td data-testid="delivery-status">{delivery.status_code ?? 'no answer'}</td>
                  <td>{delivery.duration_ms} ms</td>
                  <td>{delivery.error ?? ''}</td>
                  <td>
                    <button
                      type="button"
                      class="secondary outline small"
                      onClick={() => {
                        setRetried(false);
                        void retry
                          .run(() => client.retryWebhookDelivery({ path: { ...path, delivery_id: delivery.id } }))
                          .then((accepted) => {
                            if (accepted) setRetried(true);
                          });
                      }}
                    >
                      Retry
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      ) : null}
      <Pager page={pages.page} nextCursor={deliveries.data?.next_cursor} onNext={pages.next} onPrevious={pages.previous} />
    </div>
  );
}
