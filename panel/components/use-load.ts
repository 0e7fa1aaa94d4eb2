/**
 * Loads data for a page: { data, error, loading, reload }, re-run when `deps` change. The request starts as soon as
 * the component is rendered (a layout effect), not after the next frame as a plain effect would: each page waits for
 * the signed-in user first, and every frame spent between two requests in a row is time before the data shows.
 */
import { useCallback, useLayoutEffect, useState } from 'preact/hooks';
import { ApiError } from '../api/client.ts';

export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  reload: () => void;
}

export function useLoad<T>(fn: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<ApiError>();
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  useLayoutEffect(() => {
    let live = true;
    setLoading(true);
    fn().then(
      (d) => live && (setData(d), setError(undefined), setLoading(false)),
      (e: unknown) => live && (setError(e instanceof ApiError ? e : new ApiError(0, 'client_error', String(e), {})), setLoading(false)),
    );
    return () => void (live = false);
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data, error, loading, reload };
}
