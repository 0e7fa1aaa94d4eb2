/** Copies a text to the clipboard and says so. */
import { useState } from 'preact/hooks';

export function CopyButton({ text, label }: { text: string; label: string }) {
  const [done, setDone] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setDone(true);
      setTimeout(() => setDone(false), 2000);
    } catch {
      setDone(false);
    }
  };
  return (
    <button type="button" onClick={copy} aria-label={label}>
      {done ? 'Copied' : 'Copy'}
    </button>
  );
}
