import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { Link } from 'wouter-preact';

/** A destructive action asked twice: the first press shows what will happen and a confirm button. */
export function ConfirmButton(props: { label: string; question: string; confirmLabel?: string; busy?: boolean; onConfirm: () => void }) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" class="secondary outline small" onClick={() => setAsking(true)}>
        {props.label}
      </button>
    );
  }
  return (
    <span class="confirm" role="group" aria-label={props.question}>
      <span>{props.question}</span>
      <button
        type="button"
        class="danger small"
        aria-busy={props.busy ? 'true' : undefined}
        onClick={() => {
          setAsking(false);
          props.onConfirm();
        }}
      >
        {props.confirmLabel ?? 'Yes, delete'}
      </button>
      <button type="button" class="secondary outline small" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

/** Previous / next over a cursor-paginated list. */
export function Pager(props: { page: number; nextCursor: string | null | undefined; onNext: (cursor: string) => void; onPrevious: () => void }) {
  if (props.page === 1 && !props.nextCursor) return null;
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" class="secondary outline small" disabled={props.page === 1} onClick={props.onPrevious}>
        ← Previous
      </button>
      <span>Page {props.page}</span>
      <button type="button" class="secondary outline small" disabled={!props.nextCursor} onClick={() => props.nextCursor && props.onNext(props.nextCursor)}>
        Next →
      </button>
    </nav>
  );
}

export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge badge-${status}`}>{status.replaceAll('_', ' ')}</span>;
}

export function Field(props: { label: string; error?: string | undefined; hint?: string; children: ComponentChildren }) {
  return (
    <label>
      {props.label}
      {props.children}
      {props.error ? <small class="field-error">{props.error}</small> : props.hint ? <small>{props.hint}</small> : null}
    </label>
  );
}

/** The header of a column of row buttons: no visible text, but a name a screen reader announces. */
export function ActionsHeader() {
  return (
    <th class="actions-header">
      <span class="visually-hidden">Actions</span>
    </th>
  );
}

/** A table that scrolls sideways on a narrow screen: focusable, so a keyboard can scroll it too. */
export function TableScroll({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div class="table-scroll" tabIndex={0} role="region" aria-label={label}>
      {children}
    </div>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

/** The page needs an organisation and the user has none yet. */
export function NeedsOrganisation() {
  return (
    <article>
      <p>
        Create an organisation first on the <Link href="/orgs">Organisations</Link> page: domains, contacts and billing belong to one.
      </p>
    </article>
  );
}
