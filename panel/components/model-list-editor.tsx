/** An ordered list of model ids: move up, move down, remove, add. The order is the order the gateway tries them. */
import { useId, useState } from 'preact/hooks';

export function ModelListEditor({ label, models, onChange }: { label: string; models: string[]; onChange: (m: string[]) => void }) {
  const [next, setNext] = useState('');
  const id = useId();
  const move = (i: number, by: number) => {
    const m = [...models];
    [m[i], m[i + by]] = [m[i + by], m[i]];
    onChange(m);
  };
  const add = () => {
    const v = next.trim();
    if (v && !models.includes(v)) onChange([...models, v]);
    setNext('');
  };
  return (
    <div class="field" role="group" aria-label={label}>
      <ol class="model-list" aria-label={`${label}, in the order tried`}>
        {models.map((m, i) => (
          <li key={m} class="row">
            <span class="muted">{i + 1}.</span>
            <code>{m}</code>
            <button type="button" disabled={i === 0} onClick={() => move(i, -1)} aria-label={`Move ${m} up`}>Up</button>
            <button type="button" disabled={i === models.length - 1} onClick={() => move(i, 1)} aria-label={`Move ${m} down`}>Down</button>
            <button type="button" onClick={() => onChange(models.filter((x) => x !== m))} aria-label={`Remove ${m}`}>Remove</button>
          </li>
        ))}
      </ol>
      <div class="row">
        <label for={id}>Add a model</label>
        <input id={id} value={next} onInput={(e) => setNext(e.currentTarget.value)} onKeyDown={(e) => { if (e.key === 'Enter') { e.preventDefault(); add(); } }} />
        <button type="button" onClick={add}>Add</button>
      </div>
    </div>
  );
}
