/** Loading, error and empty states. An empty state always names the next action. */
import type { ComponentChildren } from 'preact';
import type { ApiError } from '../api/client.ts';

export function Loading({ what }: { what: string }) {
  return <p role="status" class="muted">Loading {what}…</p>;
}

export function ErrorNote({ error, onRetry }: { error: ApiError; onRetry?: () => void }) {
  return (
    <div role="alert" class="note error">
      <p>{error.message}</p>
      {onRetry && <button type="button" onClick={onRetry}>Try again</button>}
    </div>
  );
}

export function Empty({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <section class="empty" aria-label={title}>
      <h2>{title}</h2>
      {children}
    </section>
  );
}

/** The "More" button under a list read page by page (use-pages.ts); nothing when the list is complete. */
export function MoreButton({ pages, what }: { pages: { more: (() => void) | undefined; loadingMore: boolean; moreError: ApiError | undefined }; what: string }) {
  return (
    <>
      {pages.moreError && <ErrorNote error={pages.moreError} />}
      {pages.more && <p><button type="button" onClick={pages.more} disabled={pages.loadingMore}>{pages.loadingMore ? `Loading more ${what}…` : `More ${what}`}</button></p>}
    </>
  );
}
