import { useState } from 'preact/hooks';

/** The only time a secret exists in the browser: shown once with a copy button, then gone. */
export function SecretOnce(props: { label: string; title: string; secret: string; testId: string; warning: string; onDone: () => void }) {
  const [copied, setCopied] = useState<boolean | undefined>(undefined);
  const copy = () => {
    navigator.clipboard.writeText(props.secret).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  };
  return (
    <article class="secret-once" aria-label={props.label}>
      <header>
        <strong>{props.title}</strong>
      </header>
      <p class="warning">{props.warning}</p>
      <div class="secret-row">
        <code data-testid={props.testId}>{props.secret}</code>
        <button type="button" onClick={copy}>
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      {copied === false ? <small class="field-error">The browser did not allow copying: select the secret and copy it by hand.</small> : null}
      <footer>
        <button type="button" class="secondary" onClick={props.onDone}>
          I have stored it
        </button>
      </footer>
    </article>
  );
}
