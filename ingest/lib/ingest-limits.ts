/**
 * Size limits of the ingest path, in bytes, measured after decompression. "1 MB" and "20 MB" are binary
 * megabytes, as the SDKs' own documentation counts them.
 */

/** Largest event item (or /store/ body) accepted, decompressed: past it, event_too_large (413). */
export const EVENT_MAX_BYTES = 1024 * 1024;

/** Largest envelope accepted, decompressed: past it, envelope_too_large (413). */
export const ENVELOPE_MAX_BYTES = 20 * 1024 * 1024;
