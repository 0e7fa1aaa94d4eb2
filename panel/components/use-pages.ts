/**
 * A list read page by page with the API's cursor (`next_cursor`): the first page loads like any page's data, and
 * `more()` appends the next one (a "More" button), so a list longer than one page is never cut off silently.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api/client.ts';
import type { List } from '../api/views.ts';
import { useLoad, type Loaded } from './use-load.ts';

export interface Pages<T> extends Omit<Loaded<List<T>>, 'data'> {
  items: T[] | undefined;
  /** Loads the next page; undefined when there is none. */
  more: (() => void) | undefined;
  loadingMore: boolean;
  moreError: ApiError | undefined;
}

export function usePages<T>(page: (cursor: string | undefined) => Promise<List<T>>, deps: unknown[]): Pages<T> {
  const first = useLoad(() => page(undefined), deps);
  const [extra, setExtra] = useState<{ items: T[]; next: string | null }>();
  const [loadingMore, setLoadingMore] = useState(false);
  const [moreError, setMoreError] = useState<ApiError>();
  useEffect(() => setExtra(undefined), [first.data]);
  const next = extra ? extra.next : first.data?.next_cursor ?? null;
  const more = next === null ? undefined : () => {
    setLoadingMore(true);
    page(next).then(
      (p) => (setExtra({ items: [...(extra?.items ?? []), ...p.items], next: p.next_cursor }), setMoreError(undefined), setLoadingMore(false)),
      (e: unknown) => (setMoreError(e instanceof ApiError ? e : new ApiError(0, 'client_error', String(e), {})), setLoadingMore(false)),
    );
  };
  const items = first.data ? [...first.data.items, ...(extra?.items ?? [])] : undefined;
  return { items, error: first.error, loading: first.loading, reload: first.reload, more, loadingMore, moreError };
}
