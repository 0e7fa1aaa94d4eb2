/** How to send a first event with a project's DSN: the SDK snippet for JavaScript (browser), Node and Python. */
import { useState } from 'preact/hooks';
import { CopyButton } from './copy-button.tsx';

const SNIPPETS: Record<string, (dsn: string) => string> = {
  Node: (dsn) => `npm install @sentry/node\n\nimport * as Sentry from '@sentry/node';\nSentry.init({ dsn: '${dsn}' });\nSentry.captureException(new Error('my first event'));`,
  JavaScript: (dsn) => `npm install @sentry/browser\n\nimport * as Sentry from '@sentry/browser';\nSentry.init({ dsn: '${dsn}' });`,
  Python: (dsn) => `pip install sentry-sdk\n\nimport sentry_sdk\nsentry_sdk.init(dsn="${dsn}")\n1 / 0`,
};

export function SdkSnippet({ dsn }: { dsn: string }) {
  const [lang, setLang] = useState('Node');
  return (
    <div>
      <p class="row"><span>DSN</span> <code aria-label="DSN">{dsn}</code> <CopyButton text={dsn} label="Copy the DSN" /></p>
      <div role="group" aria-label="SDK" class="row">
        {Object.keys(SNIPPETS).map((l) => <button key={l} type="button" aria-pressed={lang === l} onClick={() => setLang(l)}>{l}</button>)}
      </div>
      <pre aria-label={`${lang} snippet`}>{SNIPPETS[lang](dsn)}</pre>
    </div>
  );
}
