/**
 * A stack trace as Sentry shows it: the most recent call first, in-app frames open with their context lines (the
 * line that ran highlighted), runs of library frames folded into one line that opens on demand.
 */
import type { Frame, SentryEvent } from '../api/views.ts';

const where = (f: Frame) => `${f.filename ?? f.abs_path ?? f.module ?? '?'}${f.lineno ? `:${f.lineno}${f.colno ? `:${f.colno}` : ''}` : ''}`;

function FrameItem({ f }: { f: Frame }) {
  const context = f.context_line !== undefined;
  const start = (f.lineno ?? 0) - (f.pre_context?.length ?? 0);
  return (
    <li class={f.in_app ? 'in-app' : ''}>
      <details open={!!f.in_app}>
        <summary>
          <span class="mono">{f.function ?? '(anonymous)'}</span> <span class="muted">in</span> <span class="mono">{where(f)}</span>
          {f.in_app && <span class="badge"> in app</span>}
        </summary>
        {context ? (
          <pre aria-label={`Source around ${where(f)}`}>
            {(f.pre_context ?? []).map((l, i) => <div key={`p${i}`}>{String(start + i).padStart(5)}  {l}</div>)}
            <div class="hl">{String(f.lineno ?? '').padStart(5)}  {f.context_line}</div>
            {(f.post_context ?? []).map((l, i) => <div key={`n${i}`}>{String((f.lineno ?? 0) + 1 + i).padStart(5)}  {l}</div>)}
          </pre>
        ) : (
          <p class="muted" style={{ margin: '0 0.6rem 0.4rem' }}>No source context was sent with this frame.</p>
        )}
      </details>
    </li>
  );
}

/** Groups consecutive library frames so they fold together. */
function groups(frames: Frame[]): (Frame | Frame[])[] {
  const out: (Frame | Frame[])[] = [];
  for (const f of frames) {
    const last = out[out.length - 1];
    if (f.in_app) out.push(f);
    else if (Array.isArray(last)) last.push(f);
    else out.push([f]);
  }
  return out;
}

export function StackTrace({ event }: { event: SentryEvent }) {
  const values = [...(event.exception?.values ?? [])].reverse();
  if (values.length === 0) return <p class="muted">This event has no stack trace.</p>;
  return (
    <>
      {values.map((ex, i) => {
        const frames = [...(ex.stacktrace?.frames ?? [])].reverse();
        return (
          <section key={i} aria-label={`Exception ${ex.type ?? ''}`}>
            <h3><span class="mono">{ex.type ?? 'Error'}</span>{ex.value ? `: ${ex.value}` : ''}</h3>
            {frames.length === 0 && <p class="muted">No frames were sent.</p>}
            <ol class="frames" aria-label="Frames, most recent call first">
              {groups(frames).map((g, j) =>
                Array.isArray(g) ? (
                  <li key={j}>
                    <details>
                      <summary class="muted">{g.length === 1 ? '1 library frame' : `${g.length} library frames`}</summary>
                      <ol class="frames">{g.map((f, k) => <FrameItem key={k} f={f} />)}</ol>
                    </details>
                  </li>
                ) : (
                  <FrameItem key={j} f={g} />
                ),
              )}
            </ol>
          </section>
        );
      })}
    </>
  );
}
