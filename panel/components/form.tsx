/**
 * Form pieces: a labelled field that shows an API refusal's message beside the field named in its `details.field`,
 * and the refusal of the whole form when it names no field of the form.
 */
import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';
import type { ApiError } from '../api/client.ts';

export function Field({ label, name, error, hint, children }: { label: string; name: string; error?: ApiError; hint?: string; children: (props: { id: string; 'aria-invalid'?: boolean; 'aria-describedby'?: string }) => ComponentChildren }) {
  const id = useId();
  const mine = error && error.field === name ? error : undefined;
  const describedBy = [mine ? `${id}-err` : '', hint ? `${id}-hint` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children({ id, ...(mine ? { 'aria-invalid': true } : {}), ...(describedBy ? { 'aria-describedby': describedBy } : {}) })}
      {hint && <small id={`${id}-hint`} class="muted">{hint}</small>}
      {mine && <small id={`${id}-err`} class="field-error" role="alert">{mine.message}</small>}
    </div>
  );
}

/** The form-level refusal: shown unless it was about one of `fields` (then Field shows it). */
export function FormError({ error, fields }: { error?: ApiError; fields: string[] }) {
  if (!error || (error.field && fields.includes(error.field))) return null;
  return <p role="alert" class="field-error">{error.message}</p>;
}
