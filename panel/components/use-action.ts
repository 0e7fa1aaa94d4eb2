/**
 * An action a page runs on a click or a submit (create, save, revoke…): `run` calls it, keeps the API's refusal in
 * `error` (shown beside its field or as the form's message) and says whether it is `busy`; `onDone` runs after a
 * success (usually a reload). `run` resolves to whether the action succeeded.
 */
import { useState } from 'preact/hooks';
import { ApiError } from '../api/client.ts';

export interface Action<A extends unknown[]> {
  run: (...args: A) => Promise<boolean>;
  error: ApiError | undefined;
  busy: boolean;
}

export function useAction<A extends unknown[]>(fn: (...args: A) => Promise<unknown>, onDone?: () => void): Action<A> {
  const [error, setError] = useState<ApiError>();
  const [busy, setBusy] = useState(false);
  const run = async (...args: A): Promise<boolean> => {
    setBusy(true);
    try {
      await fn(...args);
      setError(undefined);
      onDone?.();
      return true;
    } catch (e) {
      setError(e instanceof ApiError ? e : new ApiError(0, 'client_error', String(e), {}));
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { run, error, busy };
}

/** A submit handler: no page load, then the action. */
export const onSubmit = (action: { run: () => Promise<boolean> }) => (e: Event) => {
  e.preventDefault();
  void action.run();
};
