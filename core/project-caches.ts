/**
 * Names of the ingest's lookup caches of projects and client keys. The control plane changes projects and keys and
 * invalidates these names (with the project id or the public key) so that every proxy node drops its copy.
 */

/** Project settings by numeric project id (as a string). */
export const PROJECTS_CACHE = 'error-projects';

/** Client keys (the public key of a DSN) by public key. */
export const CLIENT_KEYS_CACHE = 'error-client-keys';
