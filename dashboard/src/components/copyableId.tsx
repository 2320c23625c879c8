import { useState } from 'preact/hooks';

/**
 * An id a person hands to someone else (an organisation's, to move a domain to it): shown whole,
 * copied with one press of a button a keyboard reaches, and "Copied" said in a live region.
 */
export function CopyableId({ label, value }: { label: string; value: string }) {
  const [copied, setCopied] = useState<boolean | undefined>(undefined);
  const copy = () => {
    // Cleared first, so a second copy is announced again.
    setCopied(undefined);
    navigator.clipboard.writeText(value).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  };
  return (
    <div class="copyable-id">
      <strong>{label}</strong>
      <code>{value}</code>
      <button type="button" class="secondary outline small" aria-label={`Copy ${label.toLowerCase()}`} onClick={copy}>
        Copy
      </button>
      <small role="status" class={copied === false ? 'field-error' : undefined}>
        {copied === true ? 'Copied' : copied === false ? 'The browser did not allow copying: select the id and copy it by hand.' : ''}
      </small>
    </div>
  );
}
